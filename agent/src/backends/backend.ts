/**
 * The one interface every enforcement backend implements (docs/reference.md design "Agent protocol").
 *
 * A backend enforces entries (address, absolute expiry) in targets (an ACL on a backend: an HAProxy
 * ACL `#ID`, a pair of ipset sets, ...). Every method is idempotent and batched: it gets all entries
 * of one target at once and reports one outcome per address, never throwing for a single bad entry.
 * A method throws only when the whole target is unreachable (socket refused, command missing); the
 * caller then marks every entry of the call as failed with that message.
 */
import type { Entry, Target } from "@postern/shared";

/** Outcome of one address. `error` says why the target refused it. */
export interface EntryOutcome {
  readonly ip: string;
  readonly ok: boolean;
  readonly error?: string;
}

/**
 * What the enforcer knows of an `add`'s addresses (issue #13, the grant path): `absent(ip)` (ip
 * normalised) is true for an address it believes the target does not hold — not held by it before
 * this change, or just listed missing by a drift check or reconcile. A backend that looks an address up
 * before adding it (HAProxy: `add acl` twice stores two copies) may add these at once instead. A belief
 * can be wrong (an address put there by hand): adding such an address must stay harmless. A predicate,
 * not a set: a sync's 100,000 addresses need no second collection (issue #13 item 4).
 */
export interface AddHints {
  readonly absent?: (ip: string) => boolean;
}

/** An enforcement backend of one type (haproxy, ipset, ...). */
export interface Backend {
  /** The BackendConfig key this backend handles. */
  readonly type: string;
  /**
   * Adds entries, or refreshes the expiry of ones already present. `now` is epoch milliseconds, used
   * to turn absolute expiries into native relative timeouts (ipset `timeout` seconds, rounded up).
   * Entries whose expiry is not after `now` are not added (reported ok: nothing to do). `hints` may
   * say which addresses the caller believes absent (AddHints); a backend may ignore it.
   */
  add(target: Target, entries: readonly Entry[], now: number, hints?: AddHints): Promise<EntryOutcome[]>;
  /** Removes addresses; removing one that is absent succeeds. */
  remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]>;
  /**
   * Reads the addresses actually present in the target, normalised (for drift repair). An address the
   * target holds in two forms may be listed twice.
   */
  list(target: Target): Promise<string[]>;
  /**
   * Optional streaming form of `list` (issue #13 item 7): calls `fn` with each address the target
   * holds, normalised as `list` gives them (possibly twice), while the listing is read, and resolves
   * once all were reported, so no array of every address is ever built. The enforcer's reconcile and
   * drift check use it when present, `list` otherwise.
   * @throws Error as `list`, possibly after `fn` was called for some addresses (the caller must then
   *   discard what it was given), or what `fn` threw.
   */
  forEachListed?(target: Target, fn: (ip: string) => void): Promise<void>;
  /**
   * Optional: finishes now what the backend deferred for `target` after changes (HAProxy: the ACL
   * file rewrite, normally up to 500 ms later). The enforcer calls it after a full reconcile, before
   * the sync or apply is acknowledged; never on the grant path. Failures are the backend's to report
   * (on the next change); it does not throw.
   */
  settle?(target: Target): Promise<void>;
}
