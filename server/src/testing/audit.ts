/**
 * Audit writes for tests of readers of the audit log (the GELF forwarder, the webhook collector): an
 * entry written inside a transaction that is held open, so a later-numbered entry can commit first.
 * On PostgreSQL the sequence hands out ids at insert time while rows become visible at commit, so a
 * reader must not skip an id below one it has already seen; SQLite writes one transaction at a time,
 * so there the held transaction blocks every other write (use it on PostgreSQL only).
 */
import type { Db } from "../db/index.ts";
import { writeAudit } from "../services/audit.ts";
import type { AuditEntry } from "../services/audit.ts";

/** An audit write whose transaction is still open. */
export interface HeldAuditWrite {
  /** Lets the transaction commit and resolves once it has; rejects with the transaction's error. */
  commit(): Promise<void>;
}

/**
 * Writes `entry` with writeAudit inside a transaction on `db` and keeps that transaction open: resolves
 * once the entry is written (its id taken, the row not yet committed), with a handle to commit it.
 * Rejects with the transaction's error when the write fails.
 */
export async function holdAuditWrite(db: Db, entry: AuditEntry): Promise<HeldAuditWrite> {
  let commit!: () => void;
  let written!: () => void;
  const isWritten = new Promise<void>((r) => (written = r));
  const open = db.transaction(async (tx) => {
    await writeAudit(tx, entry);
    written();
    await new Promise<void>((r) => (commit = r));
  });
  await Promise.race([isWritten, open]);
  return {
    commit: async () => {
      commit();
      await open;
    },
  };
}
