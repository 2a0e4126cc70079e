/** The FortiManager driver folder's registration: one `FortimanagerDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { FortimanagerDriver } from "./driver.ts";

/** fortimanager: objects and group members over JSON-RPC, installed after each change. */
export const fortimanagerDriver: DriverDefinition = {
  type: "fortimanager",
  create: (ctx, backend) =>
    new FortimanagerDriver({
      http: ctx.http,
      hostname: String(backend.config["Hostname"] ?? ""),
      insecure: backend.config["Insecure"] === true,
      apiKey: backend.secrets["ApiKey"] ?? "",
    }),
};
