/**
 * Admin sign-in routes (docs/reference.md admin-console §7): POST /admin/login, POST /admin/logout.
 */
import { Hono } from "hono";
import { AdminLoginRequestSchema, Errors } from "@postern/shared";
import { AppError } from "../../errors.ts";
import { parseBody } from "../../http/body.ts";
import { ADMIN_COOKIE, clearSessionCookie, requireAdmin, setSessionCookie } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { withRetryAfter } from "../user/session.ts";

/** POST /admin/login and POST /admin/logout. */
export const adminSessionRoutes = new Hono<AppEnv>()
  // POST /admin/login
  // 204 signed in; 401 err.totpVerificationRequired / err.totpEnrolmentRequired with a session
  // cookie only the admin 2FA routes accept; 401 Invalid credentials; 403 Login not permitted;
  // 429 throttled (Retry-After).
  .post("/login", async (c) => {
    const body = await parseBody(c, AdminLoginRequestSchema);
    const { token, pending, endsAt } = await withRetryAfter(c, () =>
      c
        .get("services")
        .adminSessions.login({ userName: body.UserName, password: body.Password, ip: c.get("clientIp") }),
    );
    await setSessionCookie(c, ADMIN_COOKIE, token, endsAt);
    // A TOTP code is still owed: the cookie names a session only the admin 2FA routes accept.
    if (pending)
      throw new AppError(pending === "verify" ? Errors.totpVerificationRequired : Errors.totpEnrolmentRequired);
    return c.body(null, 204);
  })
  // POST /admin/logout
  .post("/logout", requireAdmin, async (c) => {
    await c.get("services").adminSessions.logout(c.get("adminSession"), c.get("clientIp"));
    await clearSessionCookie(c, ADMIN_COOKIE);
    return c.body(null, 204);
  });
