/**
 * User sign-in routes (user-portal §7): POST /login, POST /logout.
 */
import { Hono } from "hono";
import { LoginRequestSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { USER_COOKIE, clearSessionCookie, requireUser, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** POST /login and POST /logout. */
export const sessionRoutes = new Hono<AppEnv>()
  // POST /login
  .post("/login", async (c) => {
    const body = await parseBody(c, LoginRequestSchema);
    const { token, session } = await c.var.services.userSessions.login({
      userName: body.UserName,
      password: body.Password,
      kiosk: body.KioskMode,
      ip: c.var.clientIp,
    });
    setSessionCookie(c, USER_COOKIE, token, session.endsAt);
    return c.json({ Ends: new Date(session.endsAt).toISOString() }, 200);
  })
  // POST /logout
  .post("/logout", requireUser, (c) => {
    c.var.services.userSessions.logout(c.var.userSession, c.var.clientIp);
    clearSessionCookie(c, USER_COOKIE);
    return c.body(null, 204);
  });

