/** The Firepower (FMC) driver folder's registration: one `FirepowerDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { FirepowerDriver } from "./driver.ts";

/** firepower: Host literals in an FMC network group, deployed after each change. */
export const firepowerDriver: DriverDefinition = {
  type: "firepower",
  create: (ctx, backend) =>
    new FirepowerDriver({
      http: ctx.http,
      hostname: String(backend.config["Hostname"] ?? ""),
      insecure: backend.config["Insecure"] === true,
      username: String(backend.config["Username"] ?? ""),
      password: backend.secrets["Password"] ?? "",
    }),
};
