/**
 * The refusal of a SAML step. `key` is what the browser is told (a SamlErrorKey of the shared
 * contract, put in the `error` query parameter of the redirect); `reason` is a fixed text for the
 * audit log and the server log, never attacker input.
 */
import type { SamlErrorKey } from "@postern/shared";
import { Errors } from "@postern/shared";

/** A refused SAML step: public `key`, internal `reason`, optional `userName` (only once verified). */
export class SamlError extends Error {
  readonly key: SamlErrorKey;
  readonly reason: string;
  /** The NameID of a verified assertion, for the audit entry; undefined before verification. */
  userName: string | undefined;
  constructor(key: SamlErrorKey, reason: string, userName?: string) {
    super(`${key}: ${reason}`);
    this.name = "SamlError";
    this.key = key;
    this.reason = reason;
    this.userName = userName;
  }
}

/** SAML is not configured for the audience; `reason` says what is missing. */
export const notConfigured = (reason: string) => new SamlError(Errors.samlNotConfigured.err, reason);
/** The IdP's answer is refused; `reason` says which check failed. */
export const refused = (reason: string, userName?: string) =>
  new SamlError(Errors.authenticationFailed.err, reason, userName);
