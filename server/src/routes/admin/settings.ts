/**
 * /admin/settings (docs/reference.md admin-console §7 Settings): GET general settings; POST customize, config;
 * GET and POST authentication; POST generateUserSamlKeyCert / generateAdminSamlKeyCert. The licence
 * section lives in license.ts.
 */
import { Hono } from "hono";
import { AuthenticationUpdateSchema, ConfigSettingsSchema, CustomizeSettingsSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** Settings routes. */
export const settingsRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/settings
  .get("/", async (c) => c.json(await c.get("services").adminSettings.general(), 200))
  // POST /admin/settings/customize
  .post("/customize", async (c) =>
    c.json(
      await c.get("services").adminSettings.customize(await parseBody(c, CustomizeSettingsSchema), actorOf(c)),
      200,
    ),
  )
  // POST /admin/settings/config
  .post("/config", async (c) =>
    c.json(await c.get("services").adminSettings.config(await parseBody(c, ConfigSettingsSchema), actorOf(c)), 200),
  )
  // GET /admin/settings/authentication
  .get("/authentication", async (c) => c.json(await c.get("services").adminSettings.authentication(), 200))
  // POST /admin/settings/authentication
  .post("/authentication", async (c) =>
    c.json(
      await c
        .get("services")
        .adminSettings.updateAuthentication(await parseBody(c, AuthenticationUpdateSchema), actorOf(c)),
      200,
    ),
  )
  // POST /admin/settings/generateUserSamlKeyCert
  .post("/generateUserSamlKeyCert", async (c) =>
    c.json({ Cert: await c.get("services").adminSettings.generateSamlKeyCert("user", actorOf(c)) }, 200),
  )
  // POST /admin/settings/generateAdminSamlKeyCert
  .post("/generateAdminSamlKeyCert", async (c) =>
    c.json({ Cert: await c.get("services").adminSettings.generateSamlKeyCert("admin", actorOf(c)) }, 200),
  );
