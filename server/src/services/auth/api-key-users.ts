/**
 * API-key users: non-interactive users who sign in with an API key (docs/reference.md user-portal §1 "API-key users
 * are non-interactive"; docs/reference.md admin-console §3 User AuthType `apikey` and the scope `user.auth:{userId}`,
 * §5 "API-key user: choose to create a key now or later; if creating, key name and expiry
 * required", §6 "authenticate one API-key user", §7 the endpoint /api/v1/user_sessions).
 *
 * - `createUser`: POST /admin/users with AuthType apikey and `ApiKey`: the user and its key (scope
 *   `user.auth:{id}`) in one transaction; the plaintext key is answered once.
 * - `signIn`, `listSessions`, `endSession`: the /api/v1/user_sessions API. The key comes as
 *   `Authorization: Bearer <key>`; it must be valid, unexpired, used from inside its AllowedFrom and
 *   carry `user.auth:{userId}` of an existing user of AuthType apikey. A sign-in issues an ordinary
 *   user session (`UserSessionService.issue`: Duration, SessionLimit, ValidUntil, automatic grants,
 *   audit userLoggedIn) whose cookie value the client then sends as `Cookie: postern_session=…`.
 *
 * Refusals: key problems answer as `ApiKeyService.authenticate` does (401 / 403 "Unauthorised",
 * audit apiKeyAccessDenied); user problems are audited as userLoginFailed with the user's name.
 */
import { ApiKeyScopeName, parseApiKeyScope, userAuthScope, Errors } from "@postern/shared";
import type { ApiKey, ApiKeyUserSession, ApiSession, UserApiKey, UserCreatedWithKey, UserWrite } from "@postern/shared";
import type { ErrorEntry } from "@postern/shared";
import { iso } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { getApiKey } from "../../repositories/api-keys.ts";
import type { ApiKeyRow } from "../../repositories/api-keys.ts";
import { getUserSessionWithUser, liveUserSessions } from "../../repositories/sessions.ts";
import * as usersRepo from "../../repositories/users.ts";
import type { ApiKeyService } from "../api-keys.ts";
import { parseApiKey } from "../api-keys.ts";
import type { Actor } from "../agents.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { LicensingService } from "../licensing/service.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";
import type { StatusService } from "../status.ts";
import type { UserService } from "../users.ts";
import type { UserSessionService } from "./user-sessions.ts";

/** The services an API-key user's calls go through. */
export interface ApiKeyUserParts {
  apiKeys: ApiKeyService;
  users: UserService;
  userSessions: UserSessionService;
  status: StatusService;
  licensing: LicensingService;
}

/** A key that passed authentication and the API-key user it acts as. */
export interface ApiKeyUser {
  key: ApiKeyRow;
  user: usersRepo.UserRow;
}

/** Longest user name quoted in an audit entry (the name comes from the client). */
const MAX_QUOTED_NAME = 64;

/** API-key users: creation with a key, and sign-in / sessions with the key. */
export class ApiKeyUserService extends Service {
  private readonly parts: ApiKeyUserParts;

  constructor(deps: ServiceDeps, parts: ApiKeyUserParts) {
    super(deps);
    this.parts = parts;
  }

  /**
   * Creates an API-key user together with its key (POST /admin/users with `ApiKey`; docs/reference.md admin-console
   * §5): the user as `UserService.create` does (all its rules; `AuthType` must be apikey, else 400
   * "Bad request" Extra `ApiKey: …`), then, in the same transaction, a key named `key.Name` with
   * the single scope `user.auth:{id}`, `key.ExpiredAfter` (a future ISO time or null for never;
   * a past one is 400 "Bad request" Extra `ApiKey.ExpiredAfter: …`) and `key.AllowedFrom` (default
   * the whole Internet). A taken key name is 409 "An API key with that name already exists"; any
   * failure creates neither. Audits userCreated and apiKeyCreated. Returns the id and the key with
   * its `PlaintextKey`, shown this once.
   */
  async createUser(input: UserWrite, key: UserApiKey, actor: Actor): Promise<UserCreatedWithKey> {
    let created: ApiKey | undefined;
    const id = await this.parts.users.create({ ...input, ApiKey: key }, actor, async (_tx, userId) => {
      try {
        created = await this.parts.apiKeys.create(
          {
            Name: key.Name,
            Scopes: [userAuthScope(userId)],
            ExpiredAfter: key.ExpiredAfter,
            ...(key.AllowedFrom ? { AllowedFrom: key.AllowedFrom } : {}),
          },
          actor,
        );
      } catch (err) {
        // Name the field as the admin sent it: ApiKey.ExpiredAfter, not ExpiredAfter.
        if (err instanceof AppError && err.status === 400 && err.extra !== undefined)
          throw new AppError(err, `ApiKey.${err.extra}`);
        throw err;
      }
    });
    if (created === undefined) throw new Error("API-key user created without its key");
    return { ID: id, ApiKey: created };
  }

  /** Writes a userLoginFailed entry and throws `error`. */
  private async refuseUser(
    error: ErrorEntry,
    userName: string,
    ip: string,
    why: string,
    extra?: string,
  ): Promise<never> {
    await writeAudit(this.db, {
      action: AuditAction.userLoginFailed,
      at: this.clock.now(),
      userName,
      ipAddress: ip,
      errorMessage: why,
    });
    throw new AppError(error, extra);
  }

  /**
   * Authenticates `presented` (the key from the Authorization header; undefined when none was sent)
   * from `ip` and finds the API-key user it acts as. The user is the one named by `userName` when
   * given, else the one user of the key's `user.auth` scopes. Order of refusals:
   * 1. the key itself (ApiKeyService.authenticate): no, malformed, unknown, wrong or expired key →
   *    401 "Unauthorised"; source outside AllowedFrom, or no `user.auth:{id}` scope for the user
   *    (e.g. the key of another user, a key without user.auth scope) → 403 "Unauthorised";
   * 2. a key for several users and no `userName` → 400 "Bad request" (Extra `UserName: …`);
   * 3. the scope names a deleted user → 403 "Unauthorised"; a user whose AuthType is no longer
   *    apikey → 403 "Login not permitted".
   * Key refusals are audited as apiKeyAccessDenied, user refusals as userLoginFailed.
   */
  async authenticateUser(presented: string | undefined, ip: string, userName?: string): Promise<ApiKeyUser> {
    const parts = parseApiKey(presented ?? "");
    const row = parts ? await getApiKey(this.db, parts.id) : undefined;
    const scoped = (row?.scopes ?? []).flatMap((s) => {
      const p = parseApiKeyScope(s);
      return p?.name === ApiKeyScopeName.userAuth ? [p.id] : [];
    });
    const named = userName !== undefined ? await usersRepo.getUserByName(this.db, userName) : undefined;
    let scope: string;
    if (userName !== undefined)
      scope = named
        ? userAuthScope(named.id)
        : `${ApiKeyScopeName.userAuth} (no user "${userName.slice(0, MAX_QUOTED_NAME)}")`;
    else if (scoped[0] !== undefined) scope = userAuthScope(scoped[0]);
    else scope = ApiKeyScopeName.userAuth;
    const key = await this.parts.apiKeys.authenticate(presented, ip, scope);
    if (userName === undefined && scoped.length > 1) {
      return this.refuseUser(
        Errors.badRequest,
        "",
        ip,
        `API key "${key.name}" signs in ${scoped.length} users and none was named`,
        "UserName: this API key signs in several users; name one",
      );
    }
    const user = named ?? (await usersRepo.getUser(this.db, scoped[0] ?? ""));
    if (!user)
      return this.refuseUser(Errors.unauthorised, "", ip, `API key "${key.name}": ${scope} names a deleted user`);
    if (user.authType !== "apikey")
      return this.refuseUser(
        Errors.loginNotPermitted,
        user.userName,
        ip,
        `API key "${key.name}": not an API-key user (AuthType ${user.authType})`,
      );
    return { key, user };
  }

  /**
   * Signs an API-key user in (POST /api/v1/user_sessions). After `authenticateUser`: a disabled
   * user or one past ValidUntil is 403 accountDisabled (audited by `issue`); an unlicensed user 403
   * err.unlicensedDescription (audit userLoginFailed). Then a normal, non-kiosk session of the
   * user's Duration (minutes, never beyond ValidUntil nor the key's expiry; it ends when the key is
   * deleted) is issued from `ip`, SessionLimit ending the
   * oldest sessions beyond it, and every assigned ACL without ClickToGrant is granted (audit
   * userLoggedIn). Answers the session id, the cookie token (shown once), its end and the status.
   */
  async signIn(presented: string | undefined, ip: string, userName?: string): Promise<ApiKeyUserSession> {
    const { key, user } = await this.authenticateUser(presented, ip, userName);
    const now = this.clock.now();
    const disabled = user.disabled || (user.validUntil !== null && user.validUntil <= now);
    if (!disabled && !(await this.parts.licensing.isUserLicensed(user.id))) {
      return this.refuseUser(
        Errors.unlicensedDescription,
        user.userName,
        ip,
        `API key "${key.name}": user not licensed`,
      );
    }
    const signed = await this.parts.userSessions.issue(user, {
      kiosk: false,
      ip,
      apiKey: { id: key.id, expiredAfter: key.expiredAfter },
    });
    if (signed.pending !== null) throw new Error("an API-key user's session cannot owe a TOTP code");
    return {
      ID: signed.session.sessionId,
      Token: signed.token,
      Ends: new Date(signed.session.endsAt).toISOString(),
      Status: await this.parts.status.status(signed.session),
    };
  }

  /**
   * The live sessions of the key's user, oldest first (GET /api/v1/user_sessions); refusals as in
   * `authenticateUser`. Created and Ends ISO 8601 UTC; IPAddress the session's current address.
   */
  async listSessions(presented: string | undefined, ip: string, userName?: string): Promise<ApiSession[]> {
    const { user } = await this.authenticateUser(presented, ip, userName);
    return (await liveUserSessions(this.db, this.clock.now(), user.id)).map((s) => ({
      ID: s.id,
      UserName: user.userName,
      Created: iso(s.createdAt) ?? "",
      Ends: iso(s.endsAt) ?? "",
      IPAddress: s.ipAddress,
    }));
  }

  /**
   * Ends one live session of the key's user (DELETE /api/v1/user_sessions/{id}): in one
   * transaction its grants are revoked, the session ended (reason "logout") and userLoggedOut
   * audited naming the key; the revocations go to the agents after commit. Refusals as in
   * `authenticateUser`; 404 "Not found" when the session is unknown, not live, or another user's.
   */
  async endSession(presented: string | undefined, ip: string, sessionId: string, userName?: string): Promise<void> {
    const { key, user } = await this.authenticateUser(presented, ip, userName);
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const found = await getUserSessionWithUser(tx, sessionId);
      const s = found?.session;
      if (!s || s.userId !== user.id || s.endedAt !== null || s.endsAt <= now)
        throw new AppError(Errors.notFound, "session");
      const revokeOps = await this.engine.revokeForSessions(tx, [s.id]);
      await usersRepo.endSessions(tx, [s.id], now, "logout");
      await writeAudit(tx, {
        action: AuditAction.userLoggedOut,
        at: now,
        userName: user.userName,
        ipAddress: ip,
        description: `session ended with API key "${key.name}"`,
      });
      return revokeOps;
    });
    this.engine.dispatch(ops);
  }
}
