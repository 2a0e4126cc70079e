/** SQL of the settings table: one JSON value per key. No defaults or rules (services/settings.ts). */
import { eq } from "drizzle-orm";
import { isRootDb, rawStatement, tablesOf, type Db, type Tx } from "../db/index.ts";

type Q = Db | Tx;

/**
 * The stored value of a setting, or undefined when it was never written. On the database handle (not
 * in a transaction) a raw statement prepared once: settings are read on every request (the cookie
 * names read PublicURL; issue #13 item 2).
 */
export async function readSetting(q: Q, key: string): Promise<{ value: unknown } | undefined> {
  if (isRootDb(q)) {
    // As text on both dialects (PostgreSQL's json column would come back parsed, SQLite's as text).
    const text = await rawStatement<[string]>(q, "SELECT CAST(value AS TEXT) FROM settings WHERE key = @key").value({
      key,
    });
    return text === undefined ? undefined : { value: JSON.parse(text as string) as unknown };
  }
  const { settings } = tablesOf(q);
  const row = (await q.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).limit(1))[0];
  return row ? { value: row.value } : undefined;
}

/** Writes a setting (insert or replace). */
export async function writeSetting(q: Q, key: string, value: unknown): Promise<void> {
  const { settings } = tablesOf(q);
  await q.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
}
