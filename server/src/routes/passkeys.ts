/**
 * Passkey routes (docs/reference.md user-portal §7 and admin-console §7 "Passkeys"; docs/decisions.md
 * "Passkeys"), the same for users (mounted at /otp/passkeys) and admins (at /admin/otp/passkeys):
 *
 * - signed-in session (users: a user session; admins: an admin session):
 *   GET / (list), POST /registration/options, POST /registration `{Name, Response}` (201, the
 *   passkey), DELETE /{id} (204);
 * - session still owing its second factor (the cookie the sign-in set with 401
 *   err.totpVerificationRequired): POST /authentication/options (`{Options, Totp}`), POST
 *   /authentication `{Response}` — completes the sign-in like POST /otp/verify: a new session
 *   cookie, then `{Ends}` for users and 204 for admins.
 *
 * The relying party is the PublicURL setting's host and origin, else the request's (http/public-url.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { PasskeyAuthenticationRequestSchema, PasskeyRegistrationRequestSchema } from "@postern/shared";
import type { OtpVerifyResponse } from "@postern/shared";
import { parseBody } from "../http/body.ts";
import {
  ADMIN_COOKIE,
  USER_COOKIE,
  readSessionCookie,
  requireAdmin,
  requireUser,
  setSessionCookie,
} from "../http/context.ts";
import type { AppEnv } from "../http/context.ts";
import { publicUrl } from "../http/public-url.ts";
import { relyingPartyOf } from "../services/auth/passkeys.ts";
import type { PasskeySubject, RelyingParty } from "../services/auth/passkeys.ts";

/** The relying party of this request. */
async function relyingParty(c: Context<AppEnv>): Promise<RelyingParty> {
  return relyingPartyOf(await publicUrl(c));
}

/** The routes of one audience: how it finds its signed-in and its pending subject, and how a sign-in completes. */
interface Audience {
  guard: typeof requireUser;
  signedIn: (c: Context<AppEnv>) => PasskeySubject;
  pending: (c: Context<AppEnv>) => Promise<PasskeySubject>;
  complete: (c: Context<AppEnv>) => Promise<Response>;
}

const users: Audience = {
  guard: requireUser,
  signedIn: (c) => {
    const s = c.get("userSession");
    return { kind: "user", accountId: s.userId, sessionId: s.sessionId, userName: s.userName, ip: c.get("clientIp") };
  },
  pending: async (c) => {
    const s = await c.get("services").userSessions.resolve(await readSessionCookie(c, USER_COOKIE), {
      allowPending: true,
    });
    return { kind: "user", accountId: s.userId, sessionId: s.sessionId, userName: s.userName, ip: c.get("clientIp") };
  },
  complete: async (c) => {
    const session = await c.get("services").userSessions.resolve(await readSessionCookie(c, USER_COOKIE), {
      allowPending: true,
    });
    // A new session token once the passkey verified: the pending one is spent (session fixation).
    const token = await c.get("services").userSessions.completeTotpSignIn(session);
    await setSessionCookie(c, USER_COOKIE, token, session.endsAt);
    const res: OtpVerifyResponse = { Ends: new Date(session.endsAt).toISOString() };
    return c.json(res, 200);
  },
};

const admins: Audience = {
  guard: requireAdmin,
  signedIn: (c) => {
    const s = c.get("adminSession");
    return { kind: "admin", accountId: s.adminId, sessionId: s.sessionId, userName: s.userName, ip: c.get("clientIp") };
  },
  pending: async (c) => {
    const s = await c.get("services").adminSessions.resolve(await readSessionCookie(c, ADMIN_COOKIE), {
      allowPending: true,
    });
    return { kind: "admin", accountId: s.adminId, sessionId: s.sessionId, userName: s.userName, ip: c.get("clientIp") };
  },
  complete: async (c) => {
    const session = await c.get("services").adminSessions.resolve(await readSessionCookie(c, ADMIN_COOKIE), {
      allowPending: true,
    });
    const { token, endsAt } = await c.get("services").adminSessions.completeTotpSignIn(session, c.get("clientIp"));
    await setSessionCookie(c, ADMIN_COOKIE, token, endsAt);
    return c.body(null, 204);
  },
};

/** The passkey routes of one audience (paths relative to its mount point). */
function passkeyRoutes(a: Audience) {
  return (
    new Hono<AppEnv>()
      // GET /otp/passkeys
      .get("/", a.guard, async (c) => c.json(await c.get("services").passkeys.list(a.signedIn(c)), 200))
      // POST /otp/passkeys/registration/options
      .post("/registration/options", a.guard, async (c) => {
        const options = await c.get("services").passkeys.registrationOptions(a.signedIn(c), await relyingParty(c));
        return c.json({ Options: options }, 200);
      })
      // POST /otp/passkeys/registration
      .post("/registration", a.guard, async (c) => {
        const body = await parseBody(c, PasskeyRegistrationRequestSchema);
        const passkey = await c
          .get("services")
          .passkeys.register(a.signedIn(c), await relyingParty(c), body.Name, body.Response);
        return c.json(passkey, 201);
      })
      // DELETE /otp/passkeys/{id}
      .delete("/:id", a.guard, async (c) => {
        await c.get("services").passkeys.remove(a.signedIn(c), c.req.param("id"));
        return c.body(null, 204);
      })
      // POST /otp/passkeys/authentication/options
      .post("/authentication/options", async (c) => {
        const subject = await a.pending(c);
        return c.json(await c.get("services").passkeys.authenticationOptions(subject, await relyingParty(c)), 200);
      })
      // POST /otp/passkeys/authentication
      .post("/authentication", async (c) => {
        const subject = await a.pending(c);
        const body = await parseBody(c, PasskeyAuthenticationRequestSchema);
        await c.get("services").passkeys.authenticate(subject, await relyingParty(c), body.Response);
        return await a.complete(c);
      })
  );
}

/** /otp/passkeys/*: a user's passkeys and passkey sign-in. */
export const userPasskeyRoutes = passkeyRoutes(users);
/** /admin/otp/passkeys/*: an admin's passkeys and passkey sign-in. */
export const adminPasskeyRoutes = passkeyRoutes(admins);
