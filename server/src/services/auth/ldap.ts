/**
 * LDAP sign-in for users and admins (docs/reference.md user-portal §1 "LDAP", docs/reference.md admin-console §3 "Authentication
 * settings", §6 "LDAP: DN required" / "LDAP DN optional"; docs/reference.md design "Security": escaped filters, no
 * empty passwords, StartTLS before bind). An LDAP account's password is checked by a simple bind
 * as the account's DN (`ThirdPartyAuth.DN`) on the directory named by the LDAPURL setting:
 *
 * - Schemes: `ldap://host[:389]`, `ldaps://host[:636]` (TLS from the first byte), `ldapi://<percent-
 *   encoded socket path>` (a Unix socket; empty means /var/run/slapd/ldapi). `cldap://` (connectionless
 *   LDAP over UDP, RFC 1798, historic) is accepted by the settings form (docs/reference.md admin-console §6) but cannot
 *   carry a bind: every sign-in is refused and audited ("cldap is not supported").
 * - LDAPStartTLS: on `ldap://` and `ldapi://` the connection is upgraded with StartTLS before the bind;
 *   if the upgrade fails the password is never sent. Ignored on `ldaps://` (already TLS).
 * - Certificates are verified (chain and host name) unless LDAPSkipVerifyTLS is set. The system CAs
 *   are trusted, plus the PEM CA certificate(s) of the LDAPCACertificate setting.
 * - One connection per sign-in, never re-opened: a connection lost after StartTLS cannot turn into a
 *   plain bind. Connect and each operation are bounded (LDAP_TIMEOUTS), and so is the whole check.
 * - An empty password (an anonymous bind per RFC 4513 §5.1.2) and an empty DN are refused before any
 *   network traffic.
 *
 * Outcomes: a wrong password (result 49) is a plain refusal; the sign-in then answers 401 "Invalid
 * credentials" and writes its userLoginFailed/adminLoginFailed entry. A directory that cannot be
 * reached, times out or fails TLS verification fails closed the same way (401 "Invalid credentials",
 * so nobody learns which names are LDAP accounts) and additionally writes an `ldapUnavailable` audit
 * entry with the reason; a missing DN or LDAPURL, cldap, or any other bind result writes
 * `ldapSignInRefused`. The verifier never rejects.
 *
 * `escapeFilterValue` (RFC 4515 §3) and `escapeDnValue` (RFC 4514 §2.4) are for any filter or DN built
 * from values; the bind itself uses the stored DN as the administrator entered it.
 */
import { connect as netConnect, isIP, isIPv6 } from "node:net";
import type { Socket } from "node:net";
import { connect as tlsConnect, rootCertificates } from "node:tls";
import type { ConnectionOptions } from "node:tls";
import type { Db, Tx } from "../../db/index.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { getSetting } from "../settings.ts";
import type { LdapVerifier } from "./credentials.ts";

/** Time limits of one LDAP sign-in check, in milliseconds. */
export interface LdapTimeouts {
  /** TCP (or Unix socket, or TLS for ldaps) connect. */
  connectMs: number;
  /** Each LDAP operation (StartTLS, bind): no answer within this closes the connection. */
  operationMs: number;
  /** The whole check, TLS handshakes included. */
  totalMs: number;
}

/** Default limits: 5 s to connect, 5 s per operation, 10 s in all (milliseconds). */
export const LDAP_TIMEOUTS: Readonly<LdapTimeouts> = { connectMs: 5_000, operationMs: 5_000, totalMs: 10_000 };

/** Socket of `ldapi://` without a path (Debian's slapd default). */
export const DEFAULT_LDAPI_SOCKET = "/var/run/slapd/ldapi";

/** The LDAP settings a sign-in reads (docs/reference.md admin-console §3 "Authentication settings"). */
export interface LdapConfig {
  /** LDAPURL: "" when LDAP is not configured. */
  url: string;
  /** LDAPStartTLS. */
  startTls: boolean;
  /** LDAPSkipVerifyTLS: accept any certificate (testing only). */
  skipVerifyTls: boolean;
  /** LDAPCACertificate: PEM CA certificate(s) trusted besides the system CAs; "" for none. */
  caPem: string;
}

/** Reads the LDAP settings. */
export async function readLdapConfig(db: Db | Tx): Promise<LdapConfig> {
  return {
    url: await getSetting(db, "LDAPURL"),
    startTls: await getSetting(db, "LDAPStartTLS"),
    skipVerifyTls: await getSetting(db, "LDAPSkipVerifyTLS"),
    caPem: await getSetting(db, "LDAPCACertificate"),
  };
}

/** Where an LDAP URL points: a TCP host and port (TLS from the start for ldaps), or a Unix socket. */
export type LdapTarget =
  { transport: "tcp"; host: string; port: number; tls: boolean } | { transport: "ipc"; path: string };

/** An LDAPURL that cannot be used for a bind (unknown or connectionless scheme, no host). */
export class LdapUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LdapUrlError";
  }
}

/**
 * Parses an LDAPURL into its target. Any DN, attributes or filter after the host are ignored.
 * IPv6 hosts come without brackets; ports default to 389 (ldap) and 636 (ldaps).
 * @throws LdapUrlError for cldap:// ("cldap (connectionless LDAP over UDP) is not supported"), other
 * schemes, malformed URLs and ldap/ldaps URLs without a host.
 */
export function parseLdapUrl(url: string): LdapTarget {
  const parsed = URL.parse(url);
  if (!parsed) throw new LdapUrlError("LDAPURL is not a valid URL");
  const scheme = parsed.protocol.replace(/:$/, "").toLowerCase();
  if (scheme === "cldap")
    throw new LdapUrlError("cldap (connectionless LDAP over UDP) is not supported: use ldap, ldaps or ldapi");
  if (scheme === "ldapi") {
    const path = parsed.hostname ? decodeURIComponent(parsed.hostname) : DEFAULT_LDAPI_SOCKET;
    if (!path.startsWith("/")) throw new LdapUrlError("ldapi:// must name an absolute socket path, percent-encoded");
    return { transport: "ipc", path };
  }
  if (scheme !== "ldap" && scheme !== "ldaps")
    throw new LdapUrlError(`LDAPURL scheme ${scheme} is not supported: use ldap, ldaps or ldapi`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!host) throw new LdapUrlError("LDAPURL has no host");
  const tls = scheme === "ldaps";
  return { transport: "tcp", host, port: parsed.port ? Number(parsed.port) : tls ? 636 : 389, tls };
}

/** A target for messages: scheme, host and port (or socket path), never credentials. */
function describeTarget(t: LdapTarget): string {
  return t.transport === "ipc"
    ? `ldapi://${encodeURIComponent(t.path)}`
    : `${t.tls ? "ldaps" : "ldap"}://${isIPv6(t.host) ? `[${t.host}]` : t.host}:${t.port}`;
}

/**
 * The result of one bind check: `ok`; `invalidCredentials` (wrong password, or an empty one refused
 * before any traffic); `refused` (configuration missing or unusable, or the directory answered the
 * bind with a result other than success or 49); `unavailable` (connect, TLS, StartTLS or timeout
 * failure). `detail` is for the audit log and server log only, never for the client.
 */
export type LdapBindOutcome =
  | { ok: true }
  | { ok: false; kind: "invalidCredentials" }
  | { ok: false; kind: "refused" | "unavailable"; detail: string };

/** Keeps an error text to one line of at most 300 characters. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 300);
}

/**
 * Checks `password` for `dn` by a simple bind on the directory of `config` (see the module
 * documentation for schemes, StartTLS, certificates and limits). Never rejects; resolves the outcome.
 * `timeouts` (milliseconds) override LDAP_TIMEOUTS.
 */
export async function ldapBind(
  config: LdapConfig,
  dn: string,
  password: string,
  timeouts: Partial<LdapTimeouts> = {},
): Promise<LdapBindOutcome> {
  // An empty simple bind is an anonymous bind that most directories accept: never send one.
  if (password === "") return { ok: false, kind: "invalidCredentials" };
  if (dn.trim() === "") return { ok: false, kind: "refused", detail: "the account has no DN" };
  if (config.url.trim() === "") return { ok: false, kind: "refused", detail: "LDAPURL is not set" };
  let target: LdapTarget;
  try {
    target = parseLdapUrl(config.url.trim());
  } catch (e) {
    return { ok: false, kind: "refused", detail: (e as Error).message };
  }
  const t = { ...LDAP_TIMEOUTS, ...timeouts };
  const where = describeTarget(target);
  const host = target.transport === "tcp" ? target.host : "localhost";
  const tlsOptions: ConnectionOptions = {
    rejectUnauthorized: !config.skipVerifyTls,
    ...(config.caPem.trim() !== "" ? { ca: [...rootCertificates, config.caPem] } : {}),
    // The name the certificate must carry (SNI only for names: RFC 6066 forbids addresses there).
    host,
    ...(isIP(host) ? {} : { servername: host }),
  };
  const sockets: Socket[] = [];
  let connections = 0;
  const open = (make: () => Socket): Socket => {
    // One connection per check: a reconnect (after StartTLS especially) would send the bind in clear.
    if (++connections > 1) throw new Error("the connection to the directory was lost");
    const s = make();
    sockets.push(s);
    return s;
  };
  // ldapts is loaded by the first LDAP sign-in, not at start (docs/decisions.md "Server memory").
  const { Client, ResultCodeError } = await import("ldapts");
  const client = new Client({
    url:
      target.transport === "tcp"
        ? `${target.tls ? "ldaps" : "ldap"}://${isIPv6(host) ? `[${host}]` : host}:${target.port}`
        : "ldap://localhost",
    connectTimeout: t.connectMs,
    timeout: t.operationMs,
    createConnection: (() =>
      open(() =>
        target.transport === "ipc" ? netConnect({ path: target.path }) : netConnect({ host, port: target.port }),
      )) as unknown as typeof netConnect,
    // ldaps: called as (port, host, options); StartTLS: called with {socket} to upgrade.
    createSecureConnection: ((first: unknown) => {
      if (typeof first === "number") return open(() => tlsConnect({ ...tlsOptions, port: first }));
      const s = tlsConnect({ ...tlsOptions, ...(first as ConnectionOptions) });
      sockets.push(s);
      return s;
    }) as unknown as typeof tlsConnect,
  });

  const startTls = config.startTls && !(target.transport === "tcp" && target.tls);
  let phase = startTls ? "StartTLS" : "bind";
  const work = (async (): Promise<LdapBindOutcome> => {
    if (startTls) {
      await client.startTLS({});
      phase = "bind";
    }
    await client.bind(dn, password);
    return { ok: true };
  })();
  work.catch(() => undefined); // settled after the deadline: nothing left to report
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${t.totalMs} ms`)), t.totalMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (e) {
    if (e instanceof ResultCodeError) {
      if (phase === "bind" && e.code === 49) return { ok: false, kind: "invalidCredentials" };
      if (phase === "bind")
        return {
          ok: false,
          kind: "refused",
          detail: oneLine(`${where}: the directory refused the bind: ${e.message}`),
        };
      return {
        ok: false,
        kind: "unavailable",
        detail: oneLine(`${where}: StartTLS refused by the directory: ${e.message}`),
      };
    }
    return { ok: false, kind: "unavailable", detail: oneLine(`${where}: ${phase}: ${(e as Error).message}`) };
  } finally {
    clearTimeout(timer);
    await Promise.race([client.unbind().catch(() => undefined), new Promise((r) => setTimeout(r, 200))]);
    for (const s of sockets) s.destroy();
  }
}

/** Whose sign-in a verifier checks (names the audit entries). */
export type LdapAudience = "user" | "admin";

/**
 * Builds the LdapVerifier of `audience` for `UserSessionService.useLdap` / `AdminSessionService.useLdap`.
 * It reads the LDAP settings at every call, binds with `ldapBind`, and resolves true only on a
 * successful bind. Other than a wrong or empty password, every refusal also writes an audit entry
 * (`ldapUnavailable` or `ldapSignInRefused`; Description "<audience> sign-in as <DN>" or "<audience>
 * sign-in without a DN", the reason in ErrorMessage) and a warning to the server log. Never rejects:
 * an unreachable directory fails closed (false), so the sign-in answers 401 "Invalid credentials".
 * `timeouts` (milliseconds) override LDAP_TIMEOUTS.
 */
export function createLdapVerifier(
  deps: { db: Db; clock: Clock; log: Logger },
  audience: LdapAudience,
  timeouts: Partial<LdapTimeouts> = {},
): LdapVerifier {
  return async (dn: string, password: string): Promise<boolean> => {
    const outcome = await ldapBind(await readLdapConfig(deps.db), dn, password, timeouts);
    if (outcome.ok) return true;
    if (outcome.kind === "invalidCredentials") return false;
    const action = outcome.kind === "unavailable" ? AuditAction.ldapUnavailable : AuditAction.ldapSignInRefused;
    const text = outcome.kind === "unavailable" ? "LDAP directory unavailable" : "LDAP sign-in refused";
    await writeAudit(deps.db, {
      action,
      at: deps.clock.now(),
      description: dn ? `${audience} sign-in as ${dn}` : `${audience} sign-in without a DN`,
      errorMessage: `${text}: ${outcome.detail}`,
    });
    deps.log.warn({ audience, dn, reason: outcome.detail }, text);
    return false;
  };
}

/** Sets `verifier` as the LDAP verifier of a session service (`useLdap`) and returns the service. */
export function withLdap<T extends { useLdap(verifier: LdapVerifier): void }>(service: T, verifier: LdapVerifier): T {
  service.useLdap(verifier);
  return service;
}

/**
 * Escapes a value for an LDAP search filter (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL become `\2a`,
 * `\28`, `\29`, `\5c` and `\00`; everything else (UTF-8 included) stays. Use it for every value put
 * into a filter, e.g. `(uid=${escapeFilterValue(name)})`.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/**
 * Escapes an attribute value for a DN (RFC 4514 §2.4): `"`, `+`, `,`, `;`, `<`, `>`, `=` and `\` get a
 * backslash anywhere, NUL becomes `\00`, a leading `#` or space and a trailing space get a backslash.
 * E.g. `cn=${escapeDnValue('O\'Brien, Jr.')}` → `cn=O'Brien\, Jr.`.
 */
export function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      if (c === "\0") return "\\00";
      if ('"+,;<>=\\'.includes(c)) return `\\${c}`;
      if ((c === " " && (i === 0 || i === chars.length - 1)) || (c === "#" && i === 0)) return `\\${c}`;
      return c;
    })
    .join("");
}
