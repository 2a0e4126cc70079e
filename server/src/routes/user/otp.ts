/**
 * User 2FA routes (docs/reference.md user-portal §4 "Login outcomes", §7): GET /otp/generate and POST /otp/verify.
 * Both take only a session still owing its TOTP code (the cookie POST /login set when it answered
 * 401 err.totpVerificationRequired / err.totpEnrolmentRequired); a completed session is refused.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { OtpVerifyRequestSchema } from "@postern/shared";
import type { OtpVerifyResponse } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { USER_COOKIE, readSessionCookie, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import type { UserSessionContext } from "../../services/auth/user-sessions.ts";
import type { TotpSubject } from "../../services/auth/totp.ts";

/** The pending session of the cookie (401 err.invalidSession when there is none), and who it is. */
async function pending(c: Context<AppEnv>): Promise<{ session: UserSessionContext; subject: TotpSubject }> {
  const session = await c.get("services").userSessions.resolve(await readSessionCookie(c, USER_COOKIE), {
    allowPending: true,
  });
  return {
    session,
    subject: {
      kind: "user",
      accountId: session.userId,
      sessionId: session.sessionId,
      userName: session.userName,
      ip: c.get("clientIp"),
    },
  };
}

/** GET /otp/generate and POST /otp/verify. */
export const otpRoutes = new Hono<AppEnv>()
  // GET /otp/generate
  .get("/otp/generate", async (c) => {
    const { subject } = await pending(c);
    return c.json(await c.get("services").totp.generate(subject), 200);
  })
  // POST /otp/verify
  .post("/otp/verify", async (c) => {
    const { session, subject } = await pending(c);
    const body = await parseBody(c, OtpVerifyRequestSchema);
    await c.get("services").totp.verify(subject, body.Code);
    // A new session token once the code verified: the pending one is spent (session fixation).
    const token = await c.get("services").userSessions.completeTotpSignIn(session);
    await setSessionCookie(c, USER_COOKIE, token, session.endsAt);
    const res: OtpVerifyResponse = { Ends: new Date(session.endsAt).toISOString() };
    return c.json(res, 200);
  });
