/**
 * Changing one's own password (docs/reference.md user-portal §2 "change password", §5, §7 PUT /password and POST
 * /password; docs/reference.md admin-console §7 POST /password). Both answer 204.
 *
 * - PUT /password `{CurrentPassword, NewPassword, ConfirmPassword}`: the signed-in user (portal's
 *   change-password dialog).
 * - POST /password `{ExistingPassword, NewPassword}` (the older shape, no confirmation): the
 *   signed-in admin when the request carries a live admin session (the admin console), otherwise
 *   the signed-in user.
 *
 * Errors: 400 "Bad request" (Extra "NewPassword: Must be between 8 and 64 characters", or the
 * field of another schema violation), 400 err.passwordsDontMatch, 400 "Password is too weak"
 * (Extra: the estimator's hint), 401 err.invalidSession, 403 "Cannot change password" (not a local
 * account), 403 "Invalid credentials" (wrong current password), 429 "Too many requests. Please
 * try again in..." (Extra and Retry-After: seconds).
 */
import { Hono } from "hono";
import { ChangePasswordLegacyRequestSchema, ChangePasswordRequestSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { ADMIN_COOKIE, USER_COOKIE, readSessionCookie, requireUser } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import type { AdminSessionContext } from "../../services/auth/admin-sessions.ts";
import { withRetryAfter } from "./session.ts";

/** PUT /password and POST /password. */
export const passwordRoutes = new Hono<AppEnv>()
  // PUT /password
  .put("/password", requireUser, async (c) => {
    const body = await parseBody(c, ChangePasswordRequestSchema);
    const input = {
      current: body.CurrentPassword,
      next: body.NewPassword,
      confirm: body.ConfirmPassword,
      confirmRequired: true,
    };
    await withRetryAfter(c, () =>
      c.get("services").passwordChange.changeUserPassword(c.get("userSession"), input, c.get("clientIp")),
    );
    return c.body(null, 204);
  })
  // POST /password
  .post("/password", async (c) => {
    const services = c.get("services");
    let admin: AdminSessionContext | null = null;
    const adminToken = await readSessionCookie(c, ADMIN_COOKIE);
    if (adminToken) {
      try {
        admin = await services.adminSessions.resolve(adminToken);
      } catch {
        admin = null; // not a live admin session: the user's password, if signed in
      }
    }
    const user = admin ? null : await services.userSessions.resolve(await readSessionCookie(c, USER_COOKIE));
    const body = await parseBody(c, ChangePasswordLegacyRequestSchema);
    const input = { current: body.ExistingPassword, next: body.NewPassword, confirmRequired: false };
    await withRetryAfter(c, () =>
      admin
        ? services.passwordChange.changeAdminPassword(admin, input, c.get("clientIp"))
        : services.passwordChange.changeUserPassword(user!, input, c.get("clientIp")),
    );
    return c.body(null, 204);
  });
