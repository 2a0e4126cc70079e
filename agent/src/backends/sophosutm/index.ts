/** The Sophos UTM driver folder's registration: one `SophosUtmDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { SophosUtmDriver } from "./driver.ts";

/** sophosutm: host objects in a network group over the UTM REST API. */
export const sophosutmDriver: DriverDefinition = {
  type: "sophosutm",
  create: (ctx, backend) =>
    new SophosUtmDriver({
      http: ctx.http,
      hostname: String(backend.config["Hostname"] ?? ""),
      insecure: backend.config["Insecure"] === true,
      apiKey: backend.secrets["ApiKey"] ?? "",
    }),
};
