/**
 * Sign-in and 2FA throttling (docs/reference.md design "Security": "Login and 2FA throttling per account and per
 * source address"; docs/reference.md user-portal §8 "Too many requests. Please try again in...").
 *
 * Failures are counted per key in the `login_throttle` table:
 * - `account:<lowercased user name>`: password failures, at most ACCOUNT_LIMIT (5) per window;
 * - `code:<lowercased user name>`: wrong 2FA codes, at most CODE_LIMIT (5) per window;
 * - `ip:<address>` (IPv6 by its /64): password and code failures together, ADDRESS_LIMIT (20);
 * - `saml-start:<address>` (as `ip:`): SAML sign-ins started and not completed, SAML_START_LIMIT
 *   (30), so one address cannot fill the store of pending AuthnRequests.
 * A window lasts WINDOW_MS (15 minutes) from its first failure. The failure that reaches a key's
 * limit blocks the key for BLOCK_BASE_MS (1 minute); every further failure after a block doubles it,
 * up to BLOCK_MAX_MS (15 minutes). A key is forgotten once its window and its last block both
 * ended WINDOW_MS ago. A blocked key answers 429 `{Err: "Too many requests. Please try again
 * in...", Extra: "<whole seconds until the block ends>"}` before any password is hashed.
 *
 * Password attempts are counted as failures when they begin (`beginLogin`), before the hash, so
 * that parallel requests cannot outrun the limit; a success then clears the account key and takes
 * the attempt back from the address key, and an attempt that did not test the password (the
 * directory was unreachable) is taken back from both. A success never clears the address key: one
 * known account must not reset an address that is guessing others.
 *
 * Attempts still under way are not failures yet: a sign-in (`beginAuditedLogin`) that finds a key
 * blocked only because of this process's attempts in flight waits (up to IN_FLIGHT_WAIT_MS) for
 * them to end instead of being refused, so one account signing in many times at once (a script, a
 * benchmark) is served in turn, while no more than the limit's worth of guesses is ever untested
 * (docs/decisions.md "Sign-in throttling").
 *
 * The table is the state every instance over one database agrees on; the only state of the class
 * is its own attempts in flight (other replicas' count as failures until they end: fail closed).
 */
import { normaliseIp, Errors } from "@postern/shared";
import type { Db, Tx } from "../../db/index.ts";
import type { Clock } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { deleteThrottle, getThrottle, pruneThrottle, putThrottle } from "../../repositories/login-throttle.ts";
import type { ThrottleRow } from "../../repositories/login-throttle.ts";
import { sha256 } from "./tokens.ts";
import { AuditAction } from "../audit.ts";
import { writeFoldedAudit } from "../audit-fold.ts";

/** Length of a counting window, ms (15 minutes). */
export const WINDOW_MS = 15 * 60_000;
/** Password failures per account and window before it is blocked. */
export const ACCOUNT_LIMIT = 5;
/** Wrong 2FA codes per account and window before it is blocked. */
export const CODE_LIMIT = 5;
/** Failures (passwords and codes) per source address and window before it is blocked. */
export const ADDRESS_LIMIT = 20;
/** SAML sign-ins started (and not completed) per source address and window before it is blocked. */
export const SAML_START_LIMIT = 30;
/** First block, ms (1 minute); doubled by every further failure. */
export const BLOCK_BASE_MS = 60_000;
/** Longest block, ms (15 minutes). */
export const BLOCK_MAX_MS = 15 * 60_000;
/** Longest wait of a sign-in for this process's attempts in flight to end, ms. */
export const IN_FLIGHT_WAIT_MS = 10_000;
/** How often a waiting sign-in looks again, ms. */
const IN_FLIGHT_POLL_MS = 20;
/** How often stale rows are swept, ms. */
const PRUNE_EVERY_MS = 60_000;
/** Names longer than this are keyed by their SHA-256 (the body limit allows a 1 MiB user name). */
const MAX_NAME_IN_KEY = 128;

/** The throttle key of an account's password failures: `account:<lowercased name>`. */
export function accountKey(userName: string): string {
  return `account:${nameInKey(userName)}`;
}

/** The throttle key of an account's 2FA code failures: `code:<lowercased name>`. */
export function codeKey(userName: string): string {
  return `code:${nameInKey(userName)}`;
}

function nameInKey(userName: string): string {
  const lower = userName.toLowerCase();
  return lower.length > MAX_NAME_IN_KEY ? `#${sha256(lower)}` : lower;
}

/**
 * The throttle key of a source address: `ip:<IPv4>` or `ip:<IPv6 /64 prefix>/64` (one IPv6 host
 * holds a whole /64, so its addresses count together). IPv4-mapped IPv6 counts as IPv4.
 */
export function addressKey(ip: string): string {
  const n = normaliseIp(ip);
  if (!n) return `ip:${ip.slice(0, 64)}`;
  if (n.family === "inet") return `ip:${n.ip}`;
  return `ip:${ipv6Prefix64(n.ip)}/64`;
}

/** The throttle key of SAML sign-in starts from an address: `saml-start:<address as in addressKey>`. */
export function samlStartKey(ip: string): string {
  return `saml-start:${addressKey(ip).slice("ip:".length)}`;
}

/** The first 64 bits of an RFC 5952 IPv6 address, written back in RFC 5952 form. */
function ipv6Prefix64(ip: string): string {
  const [head = "", tail] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16));
  // RFC 5952 for the prefix: trailing zero groups fold into "::"
  let last = groups.length;
  while (last > 0 && groups[last - 1] === "0") last--;
  return `${groups.slice(0, last).join(":")}::`;
}

/** What the code hooks read of a 2FA attempt (the TOTP service's CodeAttempt). */
export interface CodeAttemptInfo {
  kind: "user" | "admin";
  userName: string;
  ip: string;
}

/** One password attempt under way (from `beginLogin`): what to take back when it ends well. */
export interface LoginAttempt {
  readonly accountKey: string;
  readonly addressKey: string;
  /** The keys' blocks before this attempt counted (restored when the attempt is taken back). */
  readonly before: { readonly account: number | null; readonly address: number | null };
  /** Whether the attempt has ended (it no longer counts as in flight). */
  ended: boolean;
}

/** Why `tryBeginLogin` did not start an attempt: how long the block lasts, and whether only attempts in flight make it. */
interface Refusal {
  waitMs: number;
  inFlightOnly: boolean;
}

/** The 429 every blocked key answers; `waitMs` until the block ends, shown as whole seconds. */
export function tooManyRequests(waitMs: number): AppError {
  return new AppError(Errors.tooManyRequests, String(Math.max(1, Math.ceil(waitMs / 1000))));
}

/** Sign-in throttling over `login_throttle`; see the module comment for the rules. */
export class LoginThrottle {
  private readonly db: Db;
  private readonly clock: Clock;
  private lastPrune = 0;
  /** This process's password attempts in flight, per throttle key. */
  private readonly inFlight = new Map<string, number>();
  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Starts a password attempt for `userName` from `ip`: throws 429 "Too many requests. Please try
   * again in..." (Extra: seconds) when the account or the address is blocked, otherwise counts the
   * attempt as a failure of both keys at once and returns it. End it with `loginSucceeded` or
   * `loginAbandoned`; a failed attempt needs nothing more.
   */
  async beginLogin(userName: string, ip: string): Promise<LoginAttempt> {
    const started = await this.tryBeginLogin(userName, ip);
    if ("waitMs" in started) throw tooManyRequests(started.waitMs);
    return started;
  }

  /**
   * `beginLogin` for a sign-in request: when only this process's attempts in flight block a key, it
   * waits for them to end (looking again every 20 ms, at most IN_FLIGHT_WAIT_MS of real time);
   * refused, it calls `onBlocked` (the caller's audit entry for a blocked attempt) and throws the
   * 429. End the attempt with `loginSucceeded`, `loginFailed` or `loginAbandoned`.
   */
  async beginAuditedLogin(userName: string, ip: string, onBlocked: () => Promise<void>): Promise<LoginAttempt> {
    const giveUpAt = performance.now() + IN_FLIGHT_WAIT_MS;
    for (;;) {
      const started = await this.tryBeginLogin(userName, ip);
      if (!("waitMs" in started)) return started;
      if (!started.inFlightOnly || performance.now() >= giveUpAt) {
        await onBlocked();
        throw tooManyRequests(started.waitMs);
      }
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
    }
  }

  /** The password was right: the account key is cleared and the attempt taken back from the address key. */
  async loginSucceeded(attempt: LoginAttempt): Promise<void> {
    this.end(attempt);
    await this.db.transaction(async (tx) => {
      await deleteThrottle(tx, attempt.accountKey);
      await this.takeBack(tx, attempt.addressKey, ADDRESS_LIMIT, attempt.before.address);
    });
  }

  /** The password was wrong: the failure counted at the start stays; the attempt is no longer in flight. */
  loginFailed(attempt: LoginAttempt): void {
    this.end(attempt);
  }

  /** The attempt tested no password (e.g. the directory was unreachable): taken back from both keys. */
  async loginAbandoned(attempt: LoginAttempt): Promise<void> {
    this.end(attempt);
    await this.db.transaction(async (tx) => {
      await this.takeBack(tx, attempt.accountKey, ACCOUNT_LIMIT, attempt.before.account);
      await this.takeBack(tx, attempt.addressKey, ADDRESS_LIMIT, attempt.before.address);
    });
  }

  /**
   * Starts an attempt (counted as a failure of both keys and as in flight) unless a key is blocked;
   * then says for how long, and whether the block stands only because of this process's attempts in
   * flight (without them, the key's failures would be below its limit).
   */
  private async tryBeginLogin(userName: string, ip: string): Promise<LoginAttempt | Refusal> {
    const now = this.clock.now();
    await this.prune(now);
    const keys = { account: accountKey(userName), address: addressKey(ip) };
    const attempt = await this.db.transaction(async (tx): Promise<LoginAttempt | Refusal> => {
      const account = await this.current(tx, keys.account, now);
      const address = await this.current(tx, keys.address, now);
      const blocks = [
        { row: account, key: keys.account, limit: ACCOUNT_LIMIT },
        { row: address, key: keys.address, limit: ADDRESS_LIMIT },
      ].filter((b) => blockedFor(b.row, now) > 0);
      if (blocks.length > 0)
        return {
          waitMs: Math.max(...blocks.map((b) => blockedFor(b.row, now))),
          inFlightOnly: blocks.every((b) => (b.row?.failures ?? 0) - (this.inFlight.get(b.key) ?? 0) < b.limit),
        };
      await this.count(tx, keys.account, account, ACCOUNT_LIMIT, now);
      await this.count(tx, keys.address, address, ADDRESS_LIMIT, now);
      return {
        accountKey: keys.account,
        addressKey: keys.address,
        before: { account: account?.blockedUntil ?? null, address: address?.blockedUntil ?? null },
        ended: false,
      };
    });
    if ("accountKey" in attempt) for (const key of [attempt.accountKey, attempt.addressKey]) this.adjust(key, 1);
    return attempt;
  }

  /** Marks an attempt ended, once: it no longer counts as in flight. */
  private end(attempt: LoginAttempt): void {
    if (attempt.ended) return;
    attempt.ended = true;
    for (const key of [attempt.accountKey, attempt.addressKey]) this.adjust(key, -1);
  }

  private adjust(key: string, by: number): void {
    const n = (this.inFlight.get(key) ?? 0) + by;
    if (n > 0) this.inFlight.set(key, n);
    else this.inFlight.delete(key);
  }

  /**
   * Before checking a 2FA code of `userName` from `ip`: throws 429 "Too many requests. Please try
   * again in..." (Extra: seconds) when the account's codes or the address are blocked. Counts
   * nothing: call `recordCodeFailure` for a wrong code, `recordCodeSuccess` for a right one, with
   * no I/O wait between this check and that call (a synchronous code check such as otplib's
   * `verifySync`; awaiting already-settled promises is fine), so that parallel requests cannot all
   * pass the check before their failures are counted.
   */
  async checkCode(userName: string, ip: string): Promise<void> {
    const now = this.clock.now();
    const wait = Math.max(
      blockedFor(await this.current(this.db, codeKey(userName), now), now),
      blockedFor(await this.current(this.db, addressKey(ip), now), now),
    );
    if (wait > 0) throw tooManyRequests(wait);
  }

  /** Counts a wrong 2FA code of `userName` from `ip` against the account's code key and the address. */
  async recordCodeFailure(userName: string, ip: string): Promise<void> {
    const now = this.clock.now();
    await this.prune(now);
    const keys = { code: codeKey(userName), address: addressKey(ip) };
    await this.db.transaction(async (tx) => {
      await this.count(tx, keys.code, await this.current(tx, keys.code, now), CODE_LIMIT, now);
      await this.count(tx, keys.address, await this.current(tx, keys.address, now), ADDRESS_LIMIT, now);
    });
  }

  /**
   * Before an attempt that names no account (a SAML response posted to an ACS): throws 429 when the
   * address is blocked.
   */
  async checkAddress(ip: string): Promise<void> {
    const now = this.clock.now();
    const wait = blockedFor(await this.current(this.db, addressKey(ip), now), now);
    if (wait > 0) throw tooManyRequests(wait);
  }

  /** Counts a refused attempt that names no account (a forged, stale or replayed SAML response) against the address. */
  async recordAddressFailure(ip: string): Promise<void> {
    const now = this.clock.now();
    await this.prune(now);
    const key = addressKey(ip);
    await this.db.transaction(
      async (tx) => await this.count(tx, key, await this.current(tx, key, now), ADDRESS_LIMIT, now),
    );
  }

  /**
   * Before a SAML sign-in starts from `ip` (GET /login/saml, GET /admin/login/saml; nothing is
   * checked yet, but a pending AuthnRequest will be stored): throws 429 "Too many requests. Please
   * try again in..." (Extra: seconds) when the address is blocked, by its failures or by
   * SAML_START_LIMIT starts in the window; otherwise counts the start. `samlStartCompleted` takes it
   * back when the sign-in completes.
   */
  async beginSamlStart(ip: string): Promise<void> {
    const now = this.clock.now();
    await this.prune(now);
    const keys = { start: samlStartKey(ip), address: addressKey(ip) };
    await this.db.transaction(async (tx) => {
      const start = await this.current(tx, keys.start, now);
      const wait = Math.max(blockedFor(start, now), blockedFor(await this.current(tx, keys.address, now), now));
      if (wait > 0) throw tooManyRequests(wait);
      await this.count(tx, keys.start, start, SAML_START_LIMIT, now);
    });
  }

  /** A SAML sign-in from `ip` completed: its start is taken back (completed sign-ins never add up to a block). */
  async samlStartCompleted(ip: string): Promise<void> {
    await this.db.transaction(async (tx) => await this.takeBack(tx, samlStartKey(ip), SAML_START_LIMIT, null));
  }

  /** A right 2FA code of `userName`: clears the account's code key (the address key stays). */
  async recordCodeSuccess(userName: string): Promise<void> {
    await deleteThrottle(this.db, codeKey(userName));
  }

  /**
   * The TOTP service's throttling hooks (TotpService's `hooks`, services/auth/totp.ts): `checkCode`
   * before a code is checked (a throttled attempt is audited totpCodeFailed "too many attempts",
   * folded per address and minute (audit-fold.ts), as the TOTP service audits nothing then), `recordCodeFailure` after a refused code,
   * `recordCodeSuccess` after an accepted one.
   */
  codeHooks(): {
    beforeCode: (a: CodeAttemptInfo) => Promise<void>;
    onCodeFailure: (a: CodeAttemptInfo) => Promise<void>;
    onCodeSuccess: (a: CodeAttemptInfo) => Promise<void>;
  } {
    return {
      beforeCode: async (a) => {
        try {
          await this.checkCode(a.userName, a.ip);
        } catch (e) {
          const who = a.kind === "admin" ? { adminName: a.userName } : { userName: a.userName };
          await writeFoldedAudit(this.db, {
            action: AuditAction.totpCodeFailed,
            at: this.clock.now(),
            ...who,
            ipAddress: a.ip,
            errorMessage: "too many attempts",
          });
          throw e;
        }
      },
      onCodeFailure: async (a) => await this.recordCodeFailure(a.userName, a.ip),
      onCodeSuccess: async (a) => await this.recordCodeSuccess(a.userName),
    };
  }

  /** The key's row unless it is forgotten (window and block ended WINDOW_MS ago). */
  private async current(q: Db | Tx, key: string, now: number): Promise<ThrottleRow | null> {
    const row = await getThrottle(q, key);
    if (!row) return null;
    const forgotten = now >= row.windowStart + WINDOW_MS && now >= (row.blockedUntil ?? 0) + WINDOW_MS;
    return forgotten ? null : row;
  }

  /** Counts one failure; the failure reaching `limit` and every one after it blocks, doubling. */
  private async count(tx: Tx, key: string, row: ThrottleRow | null, limit: number, now: number): Promise<void> {
    const failures = (row?.failures ?? 0) + 1;
    const blockedUntil =
      failures >= limit
        ? now + Math.min(BLOCK_BASE_MS * 2 ** Math.min(failures - limit, 20), BLOCK_MAX_MS)
        : (row?.blockedUntil ?? null);
    await putThrottle(tx, { key, failures, windowStart: row?.windowStart ?? now, blockedUntil });
  }

  /** Takes one counted failure back; below the limit again, the block it set is undone. */
  private async takeBack(tx: Tx, key: string, limit: number, blockedBefore: number | null): Promise<void> {
    const row = await getThrottle(tx, key);
    if (!row) return;
    const failures = Math.max(0, row.failures - 1);
    if (failures === 0 && blockedBefore === null) return await deleteThrottle(tx, key);
    await putThrottle(tx, { ...row, failures, blockedUntil: failures < limit ? blockedBefore : row.blockedUntil });
  }

  /** Sweeps forgotten rows, at most once a minute. */
  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await pruneThrottle(this.db, now - WINDOW_MS);
  }
}

/** Milliseconds until the row's block ends (0 when not blocked). */
function blockedFor(row: ThrottleRow | null, now: number): number {
  return row && row.blockedUntil !== null && row.blockedUntil > now ? row.blockedUntil - now : 0;
}
