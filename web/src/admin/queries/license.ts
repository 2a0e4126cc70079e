/**
 * The licence (docs/reference.md admin-console §2 Settings "License", §3 "License status", §4 "License", §7 GET and
 * POST /admin/settings/license): its status (cached like the admin lists; the detail dialog asks
 * again on Refresh) and installing a key, after which the licence and the admin status (banner,
 * Licensing) are fetched again.
 */
import { queryOptions } from "@tanstack/react-query";
import type { InstallLicenseRequest, LicenseStatus } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";
import { statusQueries } from "./status.ts";

/** Query options of the licence. */
export const licenseQueries = {
  all: ["admin", "license"] as const,
  /** GET /api/admin/settings/license. */
  status: () =>
    queryOptions({
      queryKey: licenseQueries.all,
      queryFn: () => apiRequest<LicenseStatus>("GET", "/admin/settings/license"),
      staleTime: StaleMs.adminList,
    }),
};

/** POST /api/admin/settings/license: installs a key (or `free`); answers the new status. */
export const useInstallLicense = () =>
  useInvalidatingMutation(
    (body: InstallLicenseRequest) => apiRequest<LicenseStatus>("POST", "/admin/settings/license", { body }),
    [licenseQueries.all, statusQueries.all],
  );
