/**
 * Checking a password against an account (users and admins alike): local accounts against their
 * Argon2id hash, LDAP accounts by binding as their DN through the LDAP verifier, every other kind
 * (SAML, API-key users, unknown names) refused. Unknown accounts and empty passwords cost one dummy
 * hash so that every refusal takes about the same time (docs/reference.md design "Security").
 */
import { verifyPassword } from "./passwords.ts";

/** What a credential check needs of an account. */
export interface CredentialAccount {
  authType: string;
  passwordHash: string | null;
  dn: string;
}

/**
 * Verifies an LDAP account's password by binding as `dn` (LDAPURL, StartTLS and TLS settings are
 * the verifier's). Resolves false for wrong credentials; the LDAP service's verifier (auth/ldap.ts) also
 * resolves false, after an audit entry, when the DN is missing or the directory cannot be reached.
 */
export type LdapVerifier = (dn: string, password: string) => Promise<boolean>;

/** The LDAP verifier used until LDAP is configured: every LDAP sign-in is refused. */
export const noLdap: LdapVerifier = () => Promise.resolve(false);

/** True when `password` is right for `account` (null: an unknown name, refused after a dummy hash). */
export async function verifyCredentials(
  account: CredentialAccount | null,
  password: string,
  ldap: LdapVerifier,
): Promise<boolean> {
  if (!account || password === "") return verifyPassword(null, password);
  switch (account.authType) {
    case "local":
      return verifyPassword(account.passwordHash, password);
    case "LDAP":
      // An empty bind would be anonymous: refused above. The verifier refuses (and audits) a missing DN.
      return ldap(account.dn, password);
    default:
      return verifyPassword(null, password);
  }
}
