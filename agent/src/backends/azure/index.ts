/**
 * The Azure NSG driver folder's registration: one `AzureDriver` per backend (no capability needed).
 * The driver loads the Azure SDK on first use only. `DriverContext.endpoints` may point `azure` (ARM)
 * and `azure-login` (Entra ID) elsewhere (tests: a local HTTPS fake).
 */
import type { DriverDefinition } from "../driver.ts";
import { AzureDriver } from "./driver.ts";

/** azure: one security rule per address in a network security group, through the Azure SDK. */
export const azureDriver: DriverDefinition = {
  type: "azure",
  create: (ctx, backend) =>
    new AzureDriver({
      http: ctx.http,
      tenantId: backend.secrets["TenantId"] ?? "",
      clientId: backend.secrets["ClientId"] ?? "",
      clientSecret: backend.secrets["ClientSecret"] ?? "",
      noCache: backend.config["NoCache"] === true,
      ...(ctx.endpoints?.["azure"] ? { endpoint: ctx.endpoints["azure"] } : {}),
      ...(ctx.endpoints?.["azure-login"] ? { authorityHost: ctx.endpoints["azure-login"] } : {}),
    }),
};
