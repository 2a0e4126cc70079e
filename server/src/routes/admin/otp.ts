/**
 * Admin 2FA routes (docs/reference.md admin-console §7): GET /admin/otp/generate and POST /admin/otp/verify with
 * `{Code}` or `{deferEnrolment: true}`. Both take only an admin session still owing its TOTP code
 * (the cookie POST /admin/login set when it answered 401 err.totpVerificationRequired /
 * err.totpEnrolmentRequired); a completed session is refused. Completing the sign-in sets a new
 * admin session cookie: the pending session's token no longer resolves.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { AdminOtpVerifyRequestSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { ADMIN_COOKIE, readSessionCookie, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import type { AdminSessionContext } from "../../services/auth/admin-sessions.ts";
import type { TotpSubject } from "../../services/auth/totp.ts";

/** The pending admin session of the cookie (401 err.invalidSession when there is none), and who it is. */
async function pending(c: Context<AppEnv>): Promise<{ session: AdminSessionContext; subject: TotpSubject }> {
  const session = await c.get("services").adminSessions.resolve(await readSessionCookie(c, ADMIN_COOKIE), {
    allowPending: true,
  });
  return {
    session,
    subject: {
      kind: "admin",
      accountId: session.adminId,
      sessionId: session.sessionId,
      userName: session.userName,
      ip: c.get("clientIp"),
    },
  };
}

/** GET /admin/otp/generate and POST /admin/otp/verify (mounted at /admin/otp). */
export const adminOtpRoutes = new Hono<AppEnv>()
  // GET /admin/otp/generate
  .get("/generate", async (c) => {
    const { subject } = await pending(c);
    return c.json(await c.get("services").totp.generate(subject), 200);
  })
  // POST /admin/otp/verify
  .post("/verify", async (c) => {
    const { session, subject } = await pending(c);
    const body = await parseBody(c, AdminOtpVerifyRequestSchema);
    if (body.deferEnrolment === true) await c.get("services").totp.deferEnrolment(subject);
    else await c.get("services").totp.verify(subject, body.Code ?? "");
    // A new session token once the code verified: the pending one is spent (session fixation).
    const { token, endsAt } = await c.get("services").adminSessions.completeTotpSignIn(session, c.get("clientIp"));
    await setSessionCookie(c, ADMIN_COOKIE, token, endsAt);
    return c.body(null, 204);
  });
