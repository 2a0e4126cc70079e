/**
 * User SAML sign-in (user-portal §2 "An SSO button appears when SAML metadata is available", §7
 * "GET /saml/metadata: SAML availability", "Browser redirects for SSO: api/login/saml with a
 * kioskMode query parameter"): GET /saml/metadata, GET /login/saml, POST /saml/acs. The ACS takes
 * the IdP's cross-site form post and is exempt from the CSRF guard (http/context.ts).
 */
import { Hono } from "hono";
import { SamlLoginQuerySchema, SamlMessage, ServerMessage } from "@postern/shared";
import { USER_COOKIE, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { bindRequestToBrowser, readSamlResponse, redirectWithError, samlErrorKey, takeBrowserBinding } from "../../http/saml.ts";
import { AppError } from "../../errors.ts";
import { SamlError } from "../../services/saml/errors.ts";
import { getSetting } from "../../services/settings.ts";

/** GET /saml/metadata, GET /login/saml, POST /saml/acs. */
export const samlRoutes = new Hono<AppEnv>()
  // GET /saml/metadata
  .get("/saml/metadata", async (c) => {
    try {
      const xml = await c.var.services.saml.metadata("user");
      return c.body(xml, 200, { "content-type": "application/samlmetadata+xml; charset=utf-8" });
    } catch (err) {
      if (err instanceof SamlError) return c.json({ Err: SamlMessage.samlNotConfigured }, 404);
      throw err;
    }
  })
  // GET /login/saml
  .get("/login/saml", async (c) => {
    const query = SamlLoginQuerySchema.safeParse(c.req.query());
    if (!query.success) return redirectWithError(c, "/", ServerMessage.badRequest, 302);
    try {
      const { url, requestId } = await c.var.services.saml.startLogin("user", { kiosk: query.data.kioskMode === "true" });
      bindRequestToBrowser(c, "user", requestId);
      return c.redirect(url, 302);
    } catch (err) {
      if (err instanceof SamlError) return redirectWithError(c, "/", err.key, 302);
      throw err;
    }
  })
  // POST /saml/acs
  .post("/saml/acs", async (c) => {
    const s = c.var.services;
    const ip = c.var.clientIp;
    const binding = takeBrowserBinding(c, "user");
    try {
      // Refused responses count against the address like failed passwords (design.md "Security").
      s.throttle.checkAddress(ip);
      let samlResponse: string;
      try {
        samlResponse = await readSamlResponse(c);
      } catch (err) {
        if (err instanceof SamlError) s.saml.auditRefusal("user", ip, err);
        throw err;
      }
      const signIn = await s.saml.completeUser(samlResponse, { ip, binding });
      const { token, session } = s.userSessions.issue(signIn.user, { kiosk: signIn.kiosk, ip, ...(signIn.minutes !== undefined ? { minutes: signIn.minutes } : {}) });
      setSessionCookie(c, USER_COOKIE, token, session.endsAt);
      return c.redirect(getSetting(s.db, "NewUserDashboard") ? "/home/new" : "/home", 303);
    } catch (err) {
      if (!(err instanceof SamlError) && !(err instanceof AppError)) s.log.error({ err }, "SAML sign-in failed");
      if (err instanceof SamlError) s.throttle.recordAddressFailure(ip);
      return redirectWithError(c, "/", samlErrorKey(err), 303);
    }
  });
