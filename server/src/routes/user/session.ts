/**
 * User sign-in routes (docs/reference.md user-portal §4 "Login outcomes", §7): POST /login, POST /logout.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { LoginRequestSchema, Errors } from "@postern/shared";
import type { ErrorEntry } from "@postern/shared";
import { AppError } from "../../errors.ts";
import { parseBody } from "../../http/body.ts";
import {
  ADMIN_COOKIE,
  USER_COOKIE,
  clearSessionCookie,
  requireUser,
  setSessionCookie,
  userAddress,
} from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** The error of a sign-in that still owes its TOTP code. */
function pendingError(pending: "verify" | "enrol"): ErrorEntry {
  return pending === "verify" ? Errors.totpVerificationRequired : Errors.totpEnrolmentRequired;
}

/**
 * Runs `work`; a 429 it throws also sets `Retry-After` (seconds, the same number as its Extra) on
 * the response. For the throttled sign-in and password routes.
 */
export async function withRetryAfter<T>(c: Context<AppEnv>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof AppError && e.status === 429 && e.extra) c.header("Retry-After", e.extra);
    throw e;
  }
}

/** POST /login and POST /logout. */
export const sessionRoutes = new Hono<AppEnv>()
  // POST /login
  // 200 {Ends} signed in; 401 err.totpVerificationRequired / err.totpEnrolmentRequired with a
  // session cookie only the 2FA routes accept; 401 {Err: err.unauthorised, Extra?} when the name
  // and password are an admin's: the admin cookie is set (Extra names the TOTP step still owed);
  // 401 Invalid credentials; 403 accountDisabled / Login not permitted; 429 throttled.
  .post("/login", async (c) => {
    const body = await parseBody(c, LoginRequestSchema);
    const services = c.get("services");
    const outcome = await withRetryAfter(c, () =>
      services.userSessions.portalLogin(
        { userName: body.UserName, password: body.Password, kiosk: body.KioskMode, ip: userAddress(c) },
        services.adminSessions,
      ),
    );
    if (outcome.kind === "admin") {
      await setSessionCookie(c, ADMIN_COOKIE, outcome.token, outcome.endsAt);
      throw new AppError(Errors.adminOnUserLogin, outcome.pending ? pendingError(outcome.pending).err : undefined);
    }
    await setSessionCookie(c, USER_COOKIE, outcome.token, outcome.session.endsAt);
    // A TOTP code is still owed: the cookie names a session that only the 2FA routes accept.
    if (outcome.pending) throw new AppError(pendingError(outcome.pending));
    return c.json({ Ends: new Date(outcome.session.endsAt).toISOString() }, 200);
  })
  // POST /logout
  .post("/logout", requireUser, async (c) => {
    await c.get("services").userSessions.logout(c.get("userSession"), c.get("clientIp"));
    await clearSessionCookie(c, USER_COOKIE);
    return c.body(null, 204);
  });
