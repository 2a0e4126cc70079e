/** SQL of the settings table: one JSON value per key. No defaults or rules (services/settings.ts). */
import { eq } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { settings } from "../db/schema.ts";

type Q = Db | Tx;

/** The stored value of a setting, or undefined when it was never written. */
export async function readSetting(q: Q, key: string): Promise<{ value: unknown } | undefined> {
  const row = await q.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).get();
  return row ? { value: row.value } : undefined;
}

/** Writes a setting (insert or replace). */
export async function writeSetting(q: Q, key: string, value: unknown): Promise<void> {
  await q.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}
