/** The PAN-OS driver folder's registration: one `PanosDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { PanosDriver } from "./driver.ts";

/** panos: User-ID tag registration with native timeouts over the XML API. */
export const panosDriver: DriverDefinition = {
  type: "panos",
  create: (ctx, backend) => {
    const hostname = String(backend.config["Hostname"] ?? "");
    // A Hostname given with its scheme (`https://fw:8443`) is used as the base URL as it is.
    return new PanosDriver({
      http: ctx.http,
      hostname,
      ...(/^https?:\/\//.test(hostname) ? { baseUrl: hostname } : {}),
      insecure: backend.config["Insecure"] === true,
      apiKey: backend.secrets["ApiKey"] ?? "",
      vsys: String(backend.config["VSys"] || "vsys1"),
    });
  },
};
