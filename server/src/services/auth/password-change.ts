/**
 * Changing one's own password (docs/reference.md user-portal §2 "change password", §5 "Change password", §6 "change
 * own password (only AuthType local)", §7 PUT/POST /password; docs/reference.md admin-console §7 POST /password).
 *
 * Rules, in order: the account must be local (403 "Cannot change password"); the new password
 * 8–64 characters (checked by the body schema) and confirmed when a confirmation is asked
 * (400 err.passwordsDontMatch); its strength, scored 0–4 by zxcvbn-ts with the common and English
 * dictionaries and the account's user name, name and the name's words as user inputs, at least MIN_PASSWORD_SCORE
 * (2, "Acceptable"; 400 "Password is too weak", Extra the estimator's hint); the throttle (429, as
 * at sign-in: a wrong current password counts as a failed sign-in of the account and the
 * address); the current password right (403 "Invalid credentials"). Then the new hash is stored,
 * the account's other sessions end (a user's grants on them are revoked), the current session
 * stays, and passwordChanged is audited. Every refusal after the account check audits
 * passwordChangeFailed.
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { MIN_PASSWORD_SCORE, Errors } from "@postern/shared";
import { AppError } from "../../errors.ts";
import * as usersRepo from "../../repositories/users.ts";
import { endAdminSessions, getAdmin, liveAdminSessions, updateAdmin } from "../../repositories/admins.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { AuditEntry } from "../audit.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { LoginThrottle } from "./throttle.ts";
import type { UserSessionContext } from "./user-sessions.ts";
import type { AdminSessionContext } from "./admin-sessions.ts";

/** The end reason stored on the sessions a password change ends. */
export const PASSWORD_CHANGED = "passwordChanged";

/** A password strength estimate: score 0 (very weak) … 4 (very strong) and the estimator's hint ("" when none). */
export interface PasswordStrength {
  score: 0 | 1 | 2 | 3 | 4;
  hint: string;
}

let estimator: Promise<ZxcvbnFactory> | undefined;

/** The estimator with its dictionaries, imported on first use (about 0.1 s and a few MB the server does not hold until then). */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
    import("@zxcvbn-ts/language-en"),
  ]).then(
    ([core, common, en]) =>
      new core.ZxcvbnFactory({
        dictionary: { ...common.dictionary, ...en.dictionary },
        graphs: common.adjacencyGraphs,
        translations: en.translations,
      }),
  );
  return estimator;
}

/**
 * Scores `password` 0–4 with zxcvbn-ts (common and English dictionaries, QWERTY-style keyboard
 * graphs); `userInputs` (user name, name) count as known words. The dictionaries load on first use.
 */
export async function passwordStrength(password: string, userInputs: readonly string[]): Promise<PasswordStrength> {
  const result = (await loadEstimator()).check(
    password,
    userInputs.filter((s) => s !== ""),
  );
  return { score: result.score, hint: result.feedback.warning ?? result.feedback.suggestions[0] ?? "" };
}

/** A change request: the current password, the new one, and its confirmation when the call asks one (PUT). */
export interface PasswordChangeInput {
  current: string;
  next: string;
  /** The confirmation; `undefined` only for calls without one (POST /password). */
  confirm?: string | undefined;
  /** True when the call asks for a confirmation (PUT /password): a missing one does not match. */
  confirmRequired: boolean;
}

/** Who changes their password, as far as the rules need it. */
interface Account {
  kind: "user" | "admin";
  id: string;
  userName: string;
  name: string;
  authType: string;
  passwordHash: string | null;
}

/** Users' and admins' own password changes. */
export class PasswordChangeService extends Service {
  private readonly throttle: LoginThrottle;
  constructor(deps: ServiceDeps) {
    super(deps);
    this.throttle = new LoginThrottle(deps.db, deps.clock);
  }

  /**
   * Changes the signed-in user's password (PUT /password, POST /password with a user session).
   * Ends the user's other sessions and revokes their grants; `session` stays. Throws as described
   * in the module comment (403 "Cannot change password", 400 err.passwordsDontMatch, 400 "Password
   * is too weak", 429 "Too many requests. Please try again in...", 403 "Invalid credentials").
   */
  async changeUserPassword(session: UserSessionContext, input: PasswordChangeInput, ip: string): Promise<void> {
    const row = await usersRepo.getUser(this.db, session.userId);
    if (!row) throw new AppError(Errors.cannotChangePassword);
    const account: Account = {
      kind: "user",
      id: row.id,
      userName: row.userName,
      name: row.name,
      authType: row.authType,
      passwordHash: row.passwordHash,
    };
    const hash = await this.checkChange(account, input, ip);
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const current = await usersRepo.getUser(tx, account.id);
      // Changed while the hash was computed (no longer local, or another change won): refuse.
      if (!current || current.authType !== "local" || current.passwordHash !== account.passwordHash)
        throw new AppError(Errors.cannotChangePassword);
      await usersRepo.updateUser(tx, account.id, { passwordHash: hash });
      const others = (await usersRepo.liveSessionIds(tx, account.id, now)).filter((id) => id !== session.sessionId);
      const revoke = await this.engine.revokeForSessions(tx, others);
      await usersRepo.endSessions(tx, others, now, PASSWORD_CHANGED);
      await writeAudit(tx, {
        action: AuditAction.passwordChanged,
        at: now,
        userName: account.userName,
        ipAddress: ip,
        description: `other sessions ended: ${others.length}`,
      });
      return revoke;
    });
    this.engine.dispatch(ops);
  }

  /**
   * Changes the signed-in admin's password (POST /password with an admin session). Ends the admin's
   * other sessions; `session` stays. Throws as `changeUserPassword`.
   */
  async changeAdminPassword(session: AdminSessionContext, input: PasswordChangeInput, ip: string): Promise<void> {
    const row = await getAdmin(this.db, session.adminId);
    if (!row) throw new AppError(Errors.cannotChangePassword);
    const account: Account = {
      kind: "admin",
      id: row.id,
      userName: row.userName,
      name: row.name,
      authType: row.authType,
      passwordHash: row.passwordHash,
    };
    const hash = await this.checkChange(account, input, ip);
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const current = await getAdmin(tx, account.id);
      if (!current || current.authType !== "local" || current.passwordHash !== account.passwordHash)
        throw new AppError(Errors.cannotChangePassword);
      await updateAdmin(tx, account.id, { passwordHash: hash });
      const others = (await liveAdminSessions(tx, now, account.id))
        .map((s) => s.id)
        .filter((id) => id !== session.sessionId);
      await endAdminSessions(tx, others, now);
      await writeAudit(tx, {
        action: AuditAction.passwordChanged,
        at: now,
        adminName: account.userName,
        ipAddress: ip,
        description: `other sessions ended: ${others.length}`,
      });
    });
  }

  /** Applies the rules up to the current password's check; returns the new password's hash. */
  private async checkChange(account: Account, input: PasswordChangeInput, ip: string): Promise<string> {
    if (account.authType !== "local" || !account.passwordHash) throw new AppError(Errors.cannotChangePassword);
    const refuse = async (error: AppError): Promise<AppError> => {
      await this.audit(account, ip, { action: AuditAction.passwordChangeFailed, errorMessage: error.err });
      return error;
    };
    if ((input.confirmRequired || input.confirm !== undefined) && input.confirm !== input.next)
      throw await refuse(new AppError(Errors.passwordsDontMatch));
    const strength = await passwordStrength(input.next, [account.userName, account.name, ...account.name.split(/\s+/)]);
    if (strength.score < MIN_PASSWORD_SCORE)
      throw await refuse(new AppError(Errors.passwordTooWeak, strength.hint || undefined));
    let attempt;
    try {
      attempt = await this.throttle.beginLogin(account.userName, ip);
    } catch (e) {
      throw e instanceof AppError ? await refuse(e) : e;
    }
    let right: boolean;
    try {
      right = await verifyPassword(account.passwordHash, input.current);
    } catch (e) {
      await this.throttle.loginAbandoned(attempt);
      throw e;
    }
    if (!right) {
      this.throttle.loginFailed(attempt);
      throw await refuse(new AppError(Errors.wrongCurrentPassword));
    }
    await this.throttle.loginSucceeded(attempt);
    return hashPassword(input.next);
  }

  private async audit(account: Account, ip: string, entry: Pick<AuditEntry, "action" | "errorMessage">): Promise<void> {
    const who = account.kind === "user" ? { userName: account.userName } : { adminName: account.userName };
    await writeAudit(this.db, { ...entry, at: this.clock.now(), ...who, ipAddress: ip });
  }
}
