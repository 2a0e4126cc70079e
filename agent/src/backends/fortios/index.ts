/** The FortiOS driver folder's registration: one `FortiosDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { FortiosDriver } from "./driver.ts";

/** fortios: address objects in a FortiGate address group over the REST API. */
export const fortiosDriver: DriverDefinition = {
  type: "fortios",
  create: (ctx, backend) =>
    new FortiosDriver({
      http: ctx.http,
      url: String(backend.config["Url"] ?? ""),
      insecure: backend.config["Insecure"] === true,
      bearer: backend.secrets["Bearer"] ?? "",
      prefix: String(backend.config["Prefix"] || "kk_"),
      vdom: String(backend.config["VDOM"] ?? ""),
    }),
};
