/**
 * /admin/settings/license (docs/reference.md admin-console §2 Settings "License", §3 "License status", §7 "GET and POST
 * /admin/settings/license (License)"): read the licence status, install a licence key. Admins only.
 */
import { Hono } from "hono";
import { InstallLicenseRequestSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** Licence routes, mounted at /admin/settings/license. */
export const licenseRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/settings/license — 200 LicenseStatus; 500 err.failedToRefreshLicenseStatus when the store is broken.
  .get("/", async (c) => c.json(await c.get("services").licensing.status(), 200))
  // POST /admin/settings/license {License} — 200 the new LicenseStatus; 400 err.invalidLicenseKey / err.invalidLicenseSignature / err.licenseExpired.
  .post("/", async (c) => {
    const body = await parseBody(c, InstallLicenseRequestSchema);
    return c.json(await c.get("services").licensing.install(body.License, actorOf(c)), 200);
  });
