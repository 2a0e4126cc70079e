/**
 * Passkeys (WebAuthn) as a second factor beside TOTP, for users (not SAML or API-key users) and admins
 * (issue #14 item 2; docs/reference.md user-portal §7 and admin-console §7 "Passkeys"; docs/decisions.md
 * "Passkeys"), on @simplewebauthn/server.
 *
 * - A signed-in account enrols passkeys (registration options, then the browser's answer with a
 *   name), lists and removes them. Attestation "none"; user verification preferred, not required
 *   (the passkey follows a password).
 * - A sign-in that owes its second factor (a pending session) may answer with any of the account's
 *   passkeys instead of a TOTP code: authentication options, then the browser's answer.
 * - Every challenge is stored with its session and purpose, lives PASSKEY_CHALLENGE_TTL_MS, and is
 *   taken (deleted) by the first answer, right or wrong: a challenge is never used twice.
 * - The signature counter is checked by @simplewebauthn (a counter that does not grow, where the
 *   authenticator keeps one, is refused) and the new one stored only if the stored one did not
 *   change meanwhile.
 * - A passkey sign-in counts against the same 2FA throttle as codes (`TotpHooks`, throttle.ts
 *   codeHooks): `beforeCode` before anything is checked, `onCodeFailure` for every refused answer.
 * - Audited: passkeyAdded, passkeyRemoved, passkeyUsed, passkeyFailed.
 */
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { Errors } from "@postern/shared";
import type { Passkey, PasskeyAuthenticationOptionsResponse } from "@postern/shared";
import { AppError } from "../../errors.ts";
import * as repo from "../../repositories/passkeys.ts";
import type { PasskeyAccountKind, PasskeyRow } from "../../repositories/passkeys.ts";
import { getTotpAccount, sessionVerified } from "../../repositories/totp.ts";
import type { TotpAccountRow } from "../../repositories/totp.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { AuditEntry } from "../audit.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";
import { newId } from "./tokens.ts";
import type { CodeAttempt, TotpHooks } from "./totp.ts";

/** How long a challenge may be answered, ms (5 minutes; also the browser's timeout). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** Most passkeys one account may hold. */
export const MAX_PASSKEYS_PER_ACCOUNT = 20;
/** The relying party name browsers show. */
export const PASSKEY_RP_NAME = "Postern";

/**
 * @simplewebauthn/server (with its CBOR, ASN.1 and X.509 code), imported by the first passkey
 * operation rather than at start: most servers never see one (docs/decisions.md "Server memory").
 */
function webauthn() {
  return import("@simplewebauthn/server");
}

/**
 * The relying party of a request: `id` the host name (no port) and `origin` the scheme, host and port
 * browsers reach the server at (from the PublicURL setting, else the request; http/public-url.ts).
 */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** Who acts: the account (`kind` and id), the session, the account's user name and the caller's address. */
export interface PasskeySubject {
  kind: PasskeyAccountKind;
  accountId: string;
  sessionId: string;
  userName: string;
  ip: string;
}

/** The relying party of a public base URL (`https://host:port/path` → id "host", origin "https://host:port"). */
export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname.replace(/^\[|\]$/g, ""), origin: url.origin };
}

/** A passkey row as its owner sees it. */
function toPasskey(row: PasskeyRow): Passkey {
  return {
    ID: row.id,
    Name: row.name,
    Created: new Date(row.createdAt).toISOString(),
    LastUsed: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
  };
}

/** Passkey enrolment, listing, removal and sign-in for users and admins. */
export class PasskeyService extends Service {
  private hooks: TotpHooks;

  /** `hooks` plug in the 2FA throttle (defaults: no-ops). */
  constructor(deps: ServiceDeps, hooks: TotpHooks = {}) {
    super(deps);
    this.hooks = hooks;
  }

  /** Sets the throttling hooks (replaces the ones given before). */
  useHooks(hooks: TotpHooks): void {
    this.hooks = hooks;
  }

  /** GET /otp/passkeys: the account's passkeys, oldest first. 403 passkeysNotAvailable for SAML/API-key accounts. */
  async list(subject: PasskeySubject): Promise<Passkey[]> {
    await this.account(subject);
    return (await repo.listPasskeys(this.db, subject.kind, subject.accountId)).map(toPasskey);
  }

  /**
   * POST /otp/passkeys/registration/options (signed-in session): options for
   * `navigator.credentials.create`, the account's passkeys excluded; the challenge is stored with the
   * session. 403 passkeysNotAvailable for SAML/API-key accounts; 400 when the account holds
   * MAX_PASSKEYS_PER_ACCOUNT already.
   */
  async registrationOptions(subject: PasskeySubject, rp: RelyingParty): Promise<Record<string, unknown>> {
    const account = await this.account(subject);
    const existing = await repo.listPasskeys(this.db, subject.kind, subject.accountId);
    if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT)
      throw new AppError(Errors.badRequest, `at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys`);
    const options = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: PASSKEY_RP_NAME,
      rpID: rp.id,
      userName: account.userName,
      userID: new TextEncoder().encode(`${subject.kind}:${subject.accountId}`),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      attestationType: "none",
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    });
    await this.storeChallenge(subject, "register", options.challenge);
    return options as unknown as Record<string, unknown>;
  }

  /**
   * POST /otp/passkeys/registration (signed-in session): checks the browser's answer against the
   * session's registration challenge (taken, whatever the outcome) and stores the passkey under
   * `name`. Audits passkeyAdded, or passkeyFailed. Throws 401 "Passkey not accepted" (no or an expired
   * challenge, a wrong origin, RP id or signature), 409 when the credential is already enrolled,
   * 403 passkeysNotAvailable for SAML/API-key accounts.
   */
  async register(
    subject: PasskeySubject,
    rp: RelyingParty,
    name: string,
    response: Record<string, unknown>,
  ): Promise<Passkey> {
    await this.account(subject);
    const now = this.clock.now();
    const challenge = await repo.takeChallenge(this.db, subject.kind, subject.sessionId, "register");
    if (!challenge || challenge.expiresAt <= now) return await this.refuse(subject, "registration", "no challenge");
    let info;
    try {
      const result = await (
        await webauthn()
      ).verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
      if (!result.verified) return await this.refuse(subject, "registration", "not verified");
      info = result.registrationInfo;
    } catch (e) {
      return await this.refuse(subject, "registration", errorText(e));
    }
    if (await repo.credentialExists(this.db, info.credential.id)) throw new AppError(Errors.passkeyExists);
    const row = await this.db.transaction(async (tx) => {
      const inserted = await repo.insertPasskey(tx, subject.kind, subject.accountId, {
        id: newId(),
        name,
        credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
        counter: info.credential.counter,
        transports: info.credential.transports ?? [],
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        createdAt: now,
      });
      await writeAudit(tx, { action: AuditAction.passkeyAdded, at: now, ...this.who(subject), description: name });
      return inserted;
    });
    return toPasskey(row);
  }

  /** DELETE /otp/passkeys/{id}: removes one of the account's passkeys. 404 when it has none such. Audits passkeyRemoved. */
  async remove(subject: PasskeySubject, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await repo.deletePasskey(tx, subject.kind, subject.accountId, id);
      if (!row) throw new AppError(Errors.notFound, "passkey");
      await writeAudit(tx, {
        action: AuditAction.passkeyRemoved,
        at: this.clock.now(),
        ...this.who(subject),
        description: row.name,
      });
    });
  }

  /**
   * POST /otp/passkeys/authentication/options (session owing its second factor): options for
   * `navigator.credentials.get` naming the account's passkeys, the challenge stored with the session;
   * `Options` null when the account has none. `Totp` says whether a code works too. Throws 409
   * "Already verified 2FA" for a completed session, 401 err.invalidSession for an unknown one or a
   * SAML/API-key account.
   */
  async authenticationOptions(
    subject: PasskeySubject,
    rp: RelyingParty,
  ): Promise<PasskeyAuthenticationOptionsResponse> {
    const account = await this.pendingAccount(subject);
    const totp = account.totpEnabled && account.secretEnc !== null;
    const existing = await repo.listPasskeys(this.db, subject.kind, subject.accountId);
    if (existing.length === 0) return { Options: null, Totp: totp };
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: rp.id,
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      userVerification: "preferred",
      allowCredentials: existing.map((p) => ({
        id: p.credentialId,
        transports: p.transports as AuthenticatorTransport[],
      })),
    });
    await this.storeChallenge(subject, "authenticate", options.challenge);
    return { Options: options as unknown as Record<string, unknown>, Totp: totp };
  }

  /**
   * POST /otp/passkeys/authentication (session owing its second factor): checks the browser's answer
   * against the session's challenge (taken, whatever the outcome) and one of the account's passkeys,
   * and records the new signature counter. The caller then completes the sign-in. Audits passkeyUsed,
   * or passkeyFailed. Throws 401 "Passkey not accepted" (no or an expired challenge, an unknown or
   * removed credential, a wrong signature, origin, RP id or counter), 409 "Already verified 2FA", 401
   * err.invalidSession (see `authenticationOptions`), and whatever `hooks.beforeCode` throws (429).
   */
  async authenticate(subject: PasskeySubject, rp: RelyingParty, response: Record<string, unknown>): Promise<void> {
    await this.pendingAccount(subject);
    const attempt: CodeAttempt = {
      kind: subject.kind,
      accountId: subject.accountId,
      userName: subject.userName,
      ip: subject.ip,
    };
    await this.hooks.beforeCode?.(attempt);
    const failure = await this.checkAssertion(subject, rp, response as unknown as AuthenticationResponseJSON);
    if (failure !== null) {
      await this.hooks.onCodeFailure?.(attempt);
      await this.refuse(subject, "sign-in", failure);
    }
    await this.hooks.onCodeSuccess?.(attempt);
  }

  /** Checks an assertion and records the passkey's use; null when accepted, else why it was refused. */
  private async checkAssertion(
    subject: PasskeySubject,
    rp: RelyingParty,
    response: AuthenticationResponseJSON,
  ): Promise<string | null> {
    const now = this.clock.now();
    const challenge = await repo.takeChallenge(this.db, subject.kind, subject.sessionId, "authenticate");
    if (!challenge || challenge.expiresAt <= now) return "no challenge";
    const passkey = await repo.getPasskeyByCredential(this.db, subject.kind, subject.accountId, response.id);
    if (!passkey) return "unknown credential";
    let newCounter: number;
    try {
      const result = await (
        await webauthn()
      ).verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransport[],
        },
        requireUserVerification: false,
      });
      if (!result.verified) return "not verified";
      newCounter = result.authenticationInfo.newCounter;
    } catch (e) {
      return errorText(e);
    }
    return await this.db.transaction(async (tx) => {
      if (!(await repo.recordPasskeyUse(tx, passkey.id, passkey.counter, newCounter, now))) return "counter changed";
      await writeAudit(tx, {
        action: AuditAction.passkeyUsed,
        at: now,
        ...this.who(subject),
        description: passkey.name,
      });
      return null;
    });
  }

  /** Audits a refused answer (passkeyFailed) and throws 401 "Passkey not accepted". */
  private async refuse(subject: PasskeySubject, stage: "registration" | "sign-in", why: string): Promise<never> {
    await writeAudit(this.db, {
      action: AuditAction.passkeyFailed,
      at: this.clock.now(),
      ...this.who(subject),
      errorMessage: why.slice(0, 200),
      description: stage,
    });
    throw new AppError(Errors.passkeyRefused);
  }

  /** Stores a session's challenge for PASSKEY_CHALLENGE_TTL_MS, replacing one handed out before. */
  private async storeChallenge(subject: PasskeySubject, purpose: repo.ChallengePurpose, challenge: string) {
    const now = this.clock.now();
    await repo.putChallenge(
      this.db,
      subject.kind,
      subject.sessionId,
      purpose,
      challenge,
      now,
      now + PASSKEY_CHALLENGE_TTL_MS,
    );
  }

  /** The account of a signed-in subject; 401 when gone, 403 passkeysNotAvailable for SAML/API-key accounts. */
  private async account(subject: PasskeySubject): Promise<TotpAccountRow> {
    const account = await getTotpAccount(this.db, subject.kind, subject.accountId);
    if (!account) throw new AppError(Errors.invalidSession);
    if (account.authType === "SAML" || account.authType === "apikey") throw new AppError(Errors.passkeysNotAvailable);
    return account;
  }

  /** The account of a session still owing its second factor, or throws (see `authenticationOptions`). */
  private async pendingAccount(subject: PasskeySubject): Promise<TotpAccountRow> {
    const verified = await sessionVerified(this.db, subject.kind, subject.sessionId);
    if (verified === undefined) throw new AppError(Errors.invalidSession);
    if (verified) throw new AppError(Errors.alreadyVerified2fa);
    const account = await getTotpAccount(this.db, subject.kind, subject.accountId);
    if (!account || account.authType === "SAML" || account.authType === "apikey")
      throw new AppError(Errors.invalidSession);
    return account;
  }

  /** The audit entry's account and address fields. */
  private who(subject: PasskeySubject): Pick<AuditEntry, "userName" | "adminName" | "ipAddress"> {
    return subject.kind === "user"
      ? { userName: subject.userName, ipAddress: subject.ip }
      : { adminName: subject.userName, ipAddress: subject.ip };
  }
}

/** The message of a thrown value (simplewebauthn's reason for refusing). */
function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
