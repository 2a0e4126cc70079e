/**
 * Admin SAML sign-in (docs/reference.md admin-console §3 "Authentication settings": SAML for admins separately):
 * GET /admin/saml/metadata, GET /admin/login/saml, POST /admin/saml/acs. The admin with AuthType SAML
 * and the assertion's NameID as UserName signs in, created at its first sign-in (audit
 * adminAutoCreated); an admin of another AuthType with that name is refused. The
 * ACS takes the IdP's cross-site form post and is exempt from the CSRF guard (http/context.ts).
 */
import { Hono } from "hono";
import { ADMIN_COOKIE, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { answerAcs, answerMetadata, startSignIn } from "../../http/saml.ts";

/** GET /admin/saml/metadata, GET /admin/login/saml, POST /admin/saml/acs (mounted at /admin). */
export const adminSamlRoutes = new Hono<AppEnv>()
  // GET /admin/saml/metadata
  .get("/saml/metadata", (c) => answerMetadata(c, "admin"))
  // GET /admin/login/saml
  .get("/login/saml", (c) => startSignIn(c, "admin", "/admin", false))
  // POST /admin/saml/acs
  .post("/saml/acs", (c) =>
    answerAcs(c, "admin", "/admin", async (samlResponse, binding) => {
      const s = c.get("services");
      const admin = await s.saml.completeAdmin(samlResponse, { ip: c.get("clientIp"), binding });
      const { token, endsAt } = await s.adminSessions.issue(admin, c.get("clientIp"));
      await setSessionCookie(c, ADMIN_COOKIE, token, endsAt);
      return "/admin/home";
    }),
  );
