/**
 * User SAML sign-in (docs/reference.md user-portal §2 "An SSO button appears when SAML metadata is available", §7
 * "GET /saml/metadata: SAML availability", "Browser redirects for SSO: api/login/saml with a
 * kioskMode query parameter"): GET /saml/metadata, GET /login/saml, POST /saml/acs. The ACS takes
 * the IdP's cross-site form post and is exempt from the CSRF guard (http/context.ts).
 */
import { Hono } from "hono";
import { SamlLoginQuerySchema, Errors } from "@postern/shared";
import { USER_COOKIE, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { answerAcs, answerMetadata, redirectWithError, startSignIn } from "../../http/saml.ts";
import { getSetting } from "../../services/settings.ts";

/** GET /saml/metadata, GET /login/saml, POST /saml/acs. */
export const samlRoutes = new Hono<AppEnv>()
  // GET /saml/metadata
  .get("/saml/metadata", (c) => answerMetadata(c, "user"))
  // GET /login/saml
  .get("/login/saml", async (c) => {
    const query = SamlLoginQuerySchema.safeParse(c.req.query());
    if (!query.success) return redirectWithError(c, "/", Errors.badRequest.err, 302);
    return startSignIn(c, "user", "/", query.data.kioskMode === "true");
  })
  // POST /saml/acs
  .post("/saml/acs", (c) =>
    answerAcs(c, "user", "/", async (samlResponse, binding) => {
      const s = c.get("services");
      const ip = c.get("clientIp");
      const signIn = await s.saml.completeUser(samlResponse, { ip, binding });
      const { token, session } = await s.userSessions.issue(signIn.user, {
        kiosk: signIn.kiosk,
        ip,
        ...(signIn.minutes !== undefined ? { minutes: signIn.minutes } : {}),
      });
      await setSessionCookie(c, USER_COOKIE, token, session.endsAt);
      return (await getSetting(s.db, "NewUserDashboard")) ? "/home/new" : "/home";
    }),
  );
