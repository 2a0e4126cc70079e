/**
 * The reads of one (ACL, address) entry (`entryExpiry`, `grantsHolding`) start from the address on
 * SQLite (grants.ts BY_ADDRESS): with every session granted on one ACL, starting from the ACL's
 * holding grants made each read visit all of them (issue #13, the grant path at 1,000 sessions). A
 * plan is SQLite's own choice, so this runs on SQLite whatever the suite's database (PostgreSQL plans
 * from its statistics).
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { migrateDatabase, openDatabase, type OpenDatabase } from "../db/index.ts";
import { entryExpiry, grantsHolding } from "./grants.ts";

let dir: string;
let open: OpenDatabase;
/** The SQL texts SQLite compiled (recorded from before the database opens: db/statement-cache.ts wraps its prepare). */
let compiled: string[] = [];
beforeEach(async () => {
  const prepare = Database.prototype.prepare;
  vi.spyOn(Database.prototype, "prepare").mockImplementation(function (this: Database.Database, text: string) {
    compiled.push(text);
    return prepare.call(this, text);
  });
  dir = mkdtempSync(join(tmpdir(), "postern-plan-"));
  open = openDatabase(join(dir, "postern.db"));
  await migrateDatabase(open.db);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await open.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The SQL texts naming grant_addresses that SQLite compiles while `fn` runs. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  compiled = [];
  await fn();
  return compiled.filter((t) => t.includes("grant_addresses"));
}

/** SQLite's plan of `text`, one step per line. */
function planOf(text: string): string[] {
  const sqlite = new Database(join(dir, "postern.db"), { readonly: true });
  try {
    const params = (text.match(/\?/g) ?? []).map(() => null);
    return (sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  } finally {
    sqlite.close();
  }
}

describe("reads of one entry start from its address (grants.ts BY_ADDRESS)", () => {
  it.each([
    ["entryExpiry", () => entryExpiry(open.db, "acl-1", "192.0.2.7", Date.now(), "grant-1")],
    ["grantsHolding", () => grantsHolding(open.db, "acl-1", "192.0.2.7", [0, 2])],
  ])("%s: grant_addresses by its ip index, then each grant by id", async (_name, read) => {
    const texts = await statementsOf(read);
    expect(texts).toHaveLength(1);
    const plan = planOf(texts[0] as string);
    expect(plan[0]).toMatch(/^SEARCH grant_addresses USING (COVERING )?INDEX grant_addresses_ip_idx \(ip=\?\)$/);
    expect(plan[1]).toMatch(/^SEARCH grants USING INDEX sqlite_autoindex_grants_1 \(id=\?\)$/);
  });
});
