/** SQL of the settings table: one JSON value per key. No defaults or rules (services/settings.ts). */
import { eq } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
type Q = Db | Tx;

/** The stored value of a setting, or undefined when it was never written. */
export async function readSetting(q: Q, key: string): Promise<{ value: unknown } | undefined> {
  const { settings } = tablesOf(q);
  const row = (await q.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).limit(1))[0];
  return row ? { value: row.value } : undefined;
}

/** Writes a setting (insert or replace). */
export async function writeSetting(q: Q, key: string, value: unknown): Promise<void> {
  const { settings } = tablesOf(q);
  await q.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
}
