/**
 * User sign-in routes (user-portal §7): POST /login, POST /logout.
 */
import { Hono } from "hono";
import { ErrKey, LoginRequestSchema } from "@postern/shared";
import { AppError } from "../../errors.ts";
import { parseBody } from "../../http/body.ts";
import { USER_COOKIE, clearSessionCookie, requireUser, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** POST /login and POST /logout. */
export const sessionRoutes = new Hono<AppEnv>()
  // POST /login
  .post("/login", async (c) => {
    const body = await parseBody(c, LoginRequestSchema);
    const { token, session, pending } = await c.var.services.userSessions.login({
      userName: body.UserName,
      password: body.Password,
      kiosk: body.KioskMode,
      ip: c.var.clientIp,
    });
    setSessionCookie(c, USER_COOKIE, token, session.endsAt);
    // A TOTP code is still owed: the cookie names a session that only the 2FA routes accept.
    if (pending) throw new AppError(401, pending === "verify" ? ErrKey.totpVerificationRequired : ErrKey.totpEnrolmentRequired);
    return c.json({ Ends: new Date(session.endsAt).toISOString() }, 200);
  })
  // POST /logout
  .post("/logout", requireUser, (c) => {
    c.var.services.userSessions.logout(c.var.userSession, c.var.clientIp);
    clearSessionCookie(c, USER_COOKIE);
    return c.body(null, 204);
  });

