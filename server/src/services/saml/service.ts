/**
 * SAML sign-in for users and admins (docs/reference.md user-portal §2, §5, §7 "GET /saml/metadata", "api/login/saml
 * with a kioskMode query parameter"; docs/reference.md admin-console §3 "Authentication settings"; docs/reference.md design
 * "Security"). The flow:
 *
 * 1. `startLogin(audience, {kiosk, ip})` builds an AuthnRequest (HTTP-Redirect binding) and stores its
 *    id with the audience, the kiosk flag and an expiry of SAML_REQUEST_TTL_MS (5 minutes). Starts
 *    are throttled per source address (LoginThrottle.beginSamlStart) and each audience holds at
 *    most MAX_PENDING_SAML_REQUESTS, so neither one address nor a flood of the user sign-in can
 *    lock everyone (or the admins) out.
 * 2. The IdP posts its response to the audience's ACS; `completeUser` / `completeAdmin` check it
 *    (response.ts), consume the stored request named by InResponseTo (once, same audience, not
 *    expired), remember the assertion id until its NotOnOrAfter (a replay is refused), then find or
 *    create the account (provisioning.ts). The route then issues the session.
 *
 * Every refusal at the ACS writes an audit entry (userLoginFailed / adminLoginFailed, description
 * "SAML sign-in", errorMessage the failed check) and is logged; the browser only learns the key.
 */
import type { Logger } from "../../logger.ts";
import { Errors } from "@postern/shared";
import type { AdminSettingsService, SamlAudience } from "../admin-settings.ts";
import * as samlRepo from "../../repositories/saml.ts";
import type { UserRow } from "../../repositories/users.ts";
import type { AdminRow } from "../../repositories/admins.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { getSetting } from "../settings.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";
import { SamlError, refused } from "./errors.ts";
import { IdpMetadataCache } from "./idp-metadata.ts";
import type { FetchFn } from "./idp-metadata.ts";
import type { SamlInputs, SamlSetup } from "./setup.ts";
import type { VerifiedAssertion } from "./response.ts";
import { SamlProvisioning, groupsFrom, nameFrom, sessionMinutesFrom } from "./provisioning.ts";
import { LoginThrottle } from "../auth/throttle.ts";

/** How long an AuthnRequest may be answered, in milliseconds (5 minutes). */
export const SAML_REQUEST_TTL_MS = 5 * 60_000;
/** Most AuthnRequests pending at once per audience (user, admin); beyond it new sign-ins of that audience are refused. */
export const MAX_PENDING_SAML_REQUESTS = 10_000;

const SETTINGS = {
  user: { url: "SAMLMetadataURL", file: "SAMLMetadataFile", cert: "SAMLCert" },
  admin: { url: "AdminSAMLMetadataURL", file: "AdminSAMLMetadataFile", cert: "AdminSAMLCert" },
} as const;

/** Binds a response to the browser that started the sign-in (the request id cookie, over TLS). */
export interface BrowserBinding {
  /** Whether the binding is enforced (the request came over TLS, so the cookie could be set). */
  required: boolean;
  /** The request id the browser's cookie carries, if any. */
  requestId: string | undefined;
}

/** A verified user sign-in, ready for `userSessions.issue`. `minutes` from sessionDuration, if any. */
export interface SamlUserSignIn {
  user: UserRow;
  kiosk: boolean;
  minutes: number | undefined;
}

/** SAML for users and admins. */
export class SamlService extends Service {
  private readonly provisioning: SamlProvisioning;
  private readonly log: Logger;
  private readonly settings: AdminSettingsService;
  private readonly caches: Record<SamlAudience, IdpMetadataCache>;
  private readonly built = new Map<SamlAudience, { key: string; setup: SamlSetup }>();
  /** Start throttling per address (stateless over the login_throttle table). */
  private readonly throttle = new LoginThrottle(this.db, this.clock);

  /**
   * `settings` opens the SP private keys (AdminSettingsService.samlKey); `fetch` replaces the global
   * fetch for IdP metadata URLs (tests).
   */
  constructor(deps: ServiceDeps & { log: Logger; settings: AdminSettingsService; fetch?: FetchFn }) {
    super(deps);
    this.log = deps.log;
    this.settings = deps.settings;
    this.provisioning = new SamlProvisioning(deps);
    const cacheOpts = { now: () => this.clock.now(), log: deps.log, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
    this.caches = { user: new IdpMetadataCache(cacheOpts), admin: new IdpMetadataCache(cacheOpts) };
  }

  /**
   * The audience's SP and IdP from the current settings (cached while the settings and the IdP
   * metadata are unchanged). Throws SamlError "SAML not configured" with the reason.
   */
  async setup(audience: SamlAudience): Promise<SamlSetup> {
    const k = SETTINGS[audience];
    const inputs: SamlInputs = {
      audience,
      publicUrl: await getSetting(this.db, "PublicURL"),
      idpMetadataXml: await this.caches[audience].get(
        await getSetting(this.db, k.file),
        await getSetting(this.db, k.url),
      ),
      spKeyPem: await this.settings.samlKey(audience),
      spCertPem: await getSetting(this.db, k.cert),
    };
    const key = JSON.stringify(inputs);
    const cached = this.built.get(audience);
    if (cached?.key === key) return cached.setup;
    // samlify and the XML schema validator load on first use: a server without SAML never holds them.
    const { buildSetup } = await import("./setup.ts");
    const setup = buildSetup(inputs);
    this.built.set(audience, { key, setup });
    return setup;
  }

  /** The SP metadata XML of the audience (GET /saml/metadata). Throws SamlError "SAML not configured". */
  async metadata(audience: SamlAudience): Promise<string> {
    return (await this.setup(audience)).sp.getMetadata();
  }

  /**
   * Starts a sign-in from `ip`: returns the IdP URL to redirect to (HTTP-Redirect binding) and the
   * request id, stored with `kiosk` until `expiresAt` (epoch ms). Throws SamlError "SAML not
   * configured"; AppError 429 "Too many requests. Please try again in..." (Extra: seconds) when the
   * address is throttled (LoginThrottle.beginSamlStart);
   * SamlError "Too many requests. Please try again in..." when MAX_PENDING_SAML_REQUESTS of the
   * audience are pending.
   */
  async startLogin(
    audience: SamlAudience,
    opts: { kiosk: boolean; ip: string },
  ): Promise<{ url: string; requestId: string; expiresAt: number }> {
    const setup = await this.setup(audience);
    await this.throttle.beginSamlStart(opts.ip);
    const now = this.clock.now();
    const expiresAt = now + SAML_REQUEST_TTL_MS;
    return await this.db.transaction(async (tx) => {
      await samlRepo.purgeExpired(tx, now);
      if ((await samlRepo.pendingRequestCount(tx, audience, now)) >= MAX_PENDING_SAML_REQUESTS)
        throw new SamlError(Errors.tooManyRequests.err, "too many SAML sign-ins pending");
      const { id, context } = setup.sp.createLoginRequest(setup.idp, "redirect");
      await samlRepo.insertRequest(tx, { id, audience, kiosk: opts.kiosk, createdAt: now, expiresAt });
      return { url: context, requestId: id, expiresAt };
    });
  }

  /**
   * Completes a user sign-in from the IdP's SAMLResponse (base64, HTTP-POST binding): checks it,
   * consumes its request, and finds or creates the user (name, saml groups). Returns the user, the
   * kiosk flag of the request and the session length from sessionDuration (minutes; for a kiosk
   * session at most KioskSessionDuration). Throws SamlError (audited) on any refusal.
   */
  async completeUser(samlResponse: string, ctx: { ip: string; binding: BrowserBinding }): Promise<SamlUserSignIn> {
    return this.audited("user", ctx.ip, async () => {
      const { assertion, kiosk } = await this.verifyAndConsume("user", samlResponse, ctx.binding);
      const user = await this.provisioning.provisionUser({
        userName: assertion.nameId,
        name: nameFrom(assertion.attributes),
        groups: groupsFrom(assertion.attributes),
        ip: ctx.ip,
      });
      const asked = sessionMinutesFrom(assertion.attributes);
      const minutes =
        asked === null ? undefined : kiosk ? Math.min(asked, await getSetting(this.db, "KioskSessionDuration")) : asked;
      return { user, kiosk, minutes };
    });
  }

  /**
   * Completes an admin sign-in from the admin IdP's SAMLResponse: checks it, consumes its request,
   * and returns the admin with AuthType SAML and the NameID as UserName, created at its first
   * sign-in (provisioning.ts, audit adminAutoCreated). Throws SamlError (audited) on any refusal.
   */
  async completeAdmin(samlResponse: string, ctx: { ip: string; binding: BrowserBinding }): Promise<AdminRow> {
    return this.audited("admin", ctx.ip, async () => {
      const { assertion } = await this.verifyAndConsume("admin", samlResponse, ctx.binding);
      return await this.provisioning.provisionAdmin({
        userName: assertion.nameId,
        name: nameFrom(assertion.attributes),
        ip: ctx.ip,
      });
    });
  }

  private async verifyAndConsume(
    audience: SamlAudience,
    samlResponse: string,
    binding: BrowserBinding,
  ): Promise<{ assertion: VerifiedAssertion; kiosk: boolean }> {
    const setup = await this.setup(audience);
    const now = this.clock.now();
    const { verifyLoginResponse } = await import("./response.ts");
    const assertion = await verifyLoginResponse(setup, samlResponse, now);
    if (binding.required && binding.requestId !== assertion.inResponseTo)
      throw refused("the sign-in was not started in this browser", assertion.nameId);
    const request = await this.db.transaction(async (tx) => {
      await samlRepo.purgeExpired(tx, now);
      const row = await samlRepo.consumeRequest(tx, assertion.inResponseTo, audience, now);
      if (!row) throw refused("InResponseTo names no pending request", assertion.nameId);
      if (await samlRepo.assertionSeen(tx, assertion.assertionId))
        throw refused("assertion replayed", assertion.nameId);
      await samlRepo.rememberAssertion(tx, assertion.assertionId, assertion.rememberUntil);
      return row;
    });
    return { assertion, kiosk: request.kiosk };
  }

  /**
   * Audits and logs a refused ACS step (userLoginFailed / adminLoginFailed, description "SAML
   * sign-in", errorMessage the reason, the NameID once verified). `ip` is the caller's address.
   */
  async auditRefusal(audience: SamlAudience, ip: string, err: SamlError): Promise<void> {
    this.log.warn({ audience, ip, reason: err.reason, userName: err.userName }, "SAML sign-in refused");
    const entry = { at: this.clock.now(), ipAddress: ip, errorMessage: err.reason, description: "SAML sign-in" };
    if (audience === "user")
      await writeAudit(this.db, { ...entry, action: AuditAction.userLoginFailed, userName: err.userName ?? "" });
    else await writeAudit(this.db, { ...entry, action: AuditAction.adminLoginFailed, adminName: err.userName ?? "" });
  }

  /** Runs an ACS step; a refusal (or an unexpected error, logged) is audited, then thrown as SamlError. */
  private async audited<T>(audience: SamlAudience, ip: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof SamlError)) this.log.error({ err }, "SAML sign-in failed unexpectedly");
      const e = err instanceof SamlError ? err : refused("internal error");
      await this.auditRefusal(audience, ip, e);
      throw e;
    }
  }
}
