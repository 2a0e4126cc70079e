/**
 * Folding of audit entries that unauthenticated callers can cause at will (refused allowlist and
 * API-key reads, sign-in and 2FA attempts refused while throttled), so that no one can flood the
 * audit log (docs/decisions.md "Audit log"). Per key — the entry's action and the caller's address
 * (IPv6 by its /64, as the sign-in throttle counts it) — and minute:
 *
 * - the first entry is written at once, as it is;
 * - the further entries of that minute are only counted (the last one is kept);
 * - when the minute is over (at the key's next entry, or at `flushFoldedAudits`, which the server's
 *   sweep runs), one more entry is written: the last folded one, its description ending in
 *   "(Count: N more like this from this address in the minute)".
 *
 * The state is the `audit_folds` table, so every service instance over one database agrees and
 * nothing is lost across restarts. At most MAX_FOLD_KEYS keys are kept: beyond that, entries of a
 * new address fold into the action's overflow key `<action>:*`. Entries are only ever appended
 * (GELF forwarding tails the table by id).
 */
import type { Db, Tx } from "../db/index.ts";
import { addressKey } from "./auth/throttle.ts";
import { writeAudit } from "./audit.ts";
import { claimJob } from "../repositories/jobs.ts";
import type { AuditEntry } from "./audit.ts";
import * as repo from "../repositories/audit-folds.ts";
import type { AuditFoldRow } from "../repositories/audit-folds.ts";

/** Length of a folding window, ms (one minute). */
export const FOLD_WINDOW_MS = 60_000;
/** Most keys folded at once; entries of further addresses share their action's overflow key. */
export const MAX_FOLD_KEYS = 10_000;

/** The fold key of an entry: `<action>:<address key>`. */
export function foldKey(entry: AuditEntry): string {
  return `${entry.action}:${addressKey(entry.ipAddress ?? "").slice("ip:".length)}`;
}

/**
 * Writes `entry` (its `at` is now) folded as described above, inside the caller's transaction or
 * on `q` directly.
 */
export async function writeFoldedAudit(q: Db | Tx, entry: AuditEntry): Promise<void> {
  const now = entry.at;
  let key = foldKey(entry);
  let row = await repo.getFold(q, key);
  if (!row && (await repo.foldCount(q)) >= MAX_FOLD_KEYS) {
    key = `${entry.action}:*`;
    row = await repo.getFold(q, key);
  }
  if (row && now < row.windowStart + FOLD_WINDOW_MS) {
    await repo.putFold(q, { ...row, folded: row.folded + 1, last: { ...entry } });
    return;
  }
  if (row) await writeSummary(q, row, now);
  await writeAudit(q, entry);
  await repo.putFold(q, { key, windowStart: now, folded: 0, last: null });
}

/**
 * Ends the folding windows over at `now` (epoch ms): writes the summary entry of each that folded
 * entries and forgets the key. Returns how many summaries were written. The sweep calls it a few times a
 * second: it reads first and opens a write transaction only when a window is over, and with replicas one
 * flushes at a time (repositories/jobs.ts; the others skip the round).
 */
export async function flushFoldedAudits(db: Db, now: number): Promise<number> {
  if ((await repo.endedFolds(db, now - FOLD_WINDOW_MS)).length === 0) return 0;
  return await db.transaction(async (tx) => {
    if (!(await claimJob(tx, "audit-fold-flush"))) return 0;
    let written = 0;
    for (const row of await repo.endedFolds(tx, now - FOLD_WINDOW_MS)) {
      if (await writeSummary(tx, row, now)) written++;
      await repo.deleteFold(tx, row.key);
    }
    return written;
  });
}

/** Writes the summary of a window that folded entries (false when it folded none). */
async function writeSummary(q: Db | Tx, row: AuditFoldRow, now: number): Promise<boolean> {
  if (row.folded === 0 || !row.last) return false;
  const last = row.last as unknown as AuditEntry;
  const from = row.key.endsWith(":*") ? "from new addresses" : "from this address";
  const count = `(Count: ${row.folded} more like this ${from} in the minute)`;
  await writeAudit(q, { ...last, at: now, description: last.description ? `${last.description} ${count}` : count });
  return true;
}
