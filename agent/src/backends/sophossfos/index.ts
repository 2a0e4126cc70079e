/** The Sophos Firewall (SFOS) driver folder's registration: one `SophosSfosDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { SophosSfosDriver } from "./driver.ts";

/** sophossfos: IP hosts in an IP host group over the SFOS XML API. */
export const sophossfosDriver: DriverDefinition = {
  type: "sophossfos",
  create: (ctx, backend) =>
    new SophosSfosDriver({
      http: ctx.http,
      hostname: String(backend.config["Hostname"] ?? ""),
      insecure: backend.config["Insecure"] === true,
      username: String(backend.config["Username"] ?? ""),
      password: backend.secrets["Password"] ?? "",
    }),
};
