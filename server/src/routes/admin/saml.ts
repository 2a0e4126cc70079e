/**
 * Admin SAML sign-in (admin-console §3 "Authentication settings": SAML for admins separately):
 * GET /admin/saml/metadata, GET /admin/login/saml, POST /admin/saml/acs. Only an existing admin with
 * AuthType SAML and the assertion's NameID as UserName signs in; admins are never created here. The
 * ACS takes the IdP's cross-site form post and is exempt from the CSRF guard (http/context.ts).
 */
import { Hono } from "hono";
import { SamlMessage } from "@postern/shared";
import { AppError } from "../../errors.ts";
import { ADMIN_COOKIE, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { bindRequestToBrowser, readSamlResponse, redirectWithError, samlErrorKey, takeBrowserBinding } from "../../http/saml.ts";
import { SamlError } from "../../services/saml/errors.ts";

/** GET /admin/saml/metadata, GET /admin/login/saml, POST /admin/saml/acs (mounted at /admin). */
export const adminSamlRoutes = new Hono<AppEnv>()
  // GET /admin/saml/metadata
  .get("/saml/metadata", async (c) => {
    try {
      const xml = await c.var.services.saml.metadata("admin");
      return c.body(xml, 200, { "content-type": "application/samlmetadata+xml; charset=utf-8" });
    } catch (err) {
      if (err instanceof SamlError) return c.json({ Err: SamlMessage.samlNotConfigured }, 404);
      throw err;
    }
  })
  // GET /admin/login/saml
  .get("/login/saml", async (c) => {
    try {
      const { url, requestId } = await c.var.services.saml.startLogin("admin", { kiosk: false });
      bindRequestToBrowser(c, "admin", requestId);
      return c.redirect(url, 302);
    } catch (err) {
      if (err instanceof SamlError) return redirectWithError(c, "/admin", err.key, 302);
      throw err;
    }
  })
  // POST /admin/saml/acs
  .post("/saml/acs", async (c) => {
    const s = c.var.services;
    const ip = c.var.clientIp;
    const binding = takeBrowserBinding(c, "admin");
    try {
      // Refused responses count against the address like failed passwords (design.md "Security").
      s.throttle.checkAddress(ip);
      let samlResponse: string;
      try {
        samlResponse = await readSamlResponse(c);
      } catch (err) {
        if (err instanceof SamlError) s.saml.auditRefusal("admin", ip, err);
        throw err;
      }
      const admin = await s.saml.completeAdmin(samlResponse, { ip, binding });
      const { token, endsAt } = s.adminSessions.issue(admin, ip);
      setSessionCookie(c, ADMIN_COOKIE, token, endsAt);
      return c.redirect("/admin/home", 303);
    } catch (err) {
      if (!(err instanceof SamlError) && !(err instanceof AppError)) s.log.error({ err }, "admin SAML sign-in failed");
      if (err instanceof SamlError) s.throttle.recordAddressFailure(ip);
      return redirectWithError(c, "/admin", samlErrorKey(err), 303);
    }
  });
