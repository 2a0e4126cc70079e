/**
 * The licence store (table `licenses`): exactly one licence is installed at a time, and installing
 * replaces it. The signature is checked once, when a key is installed (API or CLI); afterwards the
 * stored key is only decoded. The store is "broken" — err.failedToRefreshLicenseStatus,
 * docs/reference.md admin-console §8 "cached licenses missing, unparsable, or not exactly one" — when it holds more
 * than one row, or its one row's key is missing or does not decode to a licence. No row at all is not
 * an error: the server is unlicensed.
 */
import type { LicensePayload } from "@postern/shared";
import type { Db, Tx } from "../../db/index.ts";
import * as repo from "../../repositories/licenses.ts";
import { decodeLicense } from "./keys.ts";

/** What the store holds: nothing, one readable licence, or something unreadable (with why). */
export type InstalledLicence =
  | { kind: "none" }
  | { kind: "installed"; payload: LicensePayload; installedAt: number }
  | { kind: "broken"; reason: string };

// Decoding is cheap, but status reads are hot: remember the last key decoded (frozen, shared).
let lastKey = "";
let lastPayload: LicensePayload | null = null;

function decodeCached(key: string): LicensePayload {
  if (key !== lastKey || !lastPayload) {
    lastPayload = Object.freeze(decodeLicense(key));
    lastKey = key;
  }
  return lastPayload;
}

/** Reads the installed licence (see the module comment for "broken"). */
export async function readInstalledLicence(q: Db | Tx): Promise<InstalledLicence> {
  const rows = await repo.listLicenses(q);
  if (rows.length === 0) return { kind: "none" };
  if (rows.length > 1) return { kind: "broken", reason: `${rows.length} licences are installed; expected exactly one` };
  const row = rows[0];
  if (!row?.key) return { kind: "broken", reason: "the installed licence has no key" };
  try {
    return { kind: "installed", payload: decodeCached(row.key), installedAt: row.installedAt };
  } catch {
    return { kind: "broken", reason: "the installed licence key cannot be parsed" };
  }
}

/**
 * Installs an already verified licence in the caller's transaction, replacing any other. `key` is
 * stored as given (`free` for the free licence); the payload is stored alongside for reading by
 * humans; `now` is epoch milliseconds.
 */
export async function storeLicence(tx: Tx, key: string, payload: LicensePayload, now: number): Promise<void> {
  await repo.replaceLicense(tx, { id: payload.ID, key, payload: { ...payload }, installedAt: now });
}
