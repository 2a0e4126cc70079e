/**
 * `postern agent create` and `postern agent server-key` through the real CLI entry (issue #8 items
 * 5–7): the token is stored only as its SHA-256 and expires after POSTERN_AGENT_TOKEN_HOURS; creation
 * is refused beyond the licence's MaxMachines with an error naming the limit; the server key printed
 * is the one kept in the data directory (mode 0600).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { databasePath, openDatabase } from "@postern/server";
import { tablesOf } from "../../../server/src/db/index.ts";
import { eq } from "drizzle-orm";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** Each CLI start takes about a second here (type stripping of the server). */
const SLOW = 120_000;
let dir = "";

/** Runs the real CLI entry with the temp data dir; bounded by a 30 s timeout. */
function postern(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, POSTERN_DATA_DIR: join(dir, "data"), POSTERN_AGENT_TOKEN_HOURS: "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The stored token columns of agent `name`. */
async function tokenColumns(name: string): Promise<{ hash: string | null; expiresAt: number | null } | undefined> {
  const database = openDatabase(databasePath(join(dir, "data")));
  try {
    return (
      await database.db
        .select({
          hash: tablesOf(database.db).agents.tokenHash,
          expiresAt: tablesOf(database.db).agents.tokenExpiresAt,
        })
        .from(tablesOf(database.db).agents)
        .where(eq(tablesOf(database.db).agents.name, name))
        .limit(1)
    )[0];
  } finally {
    await database.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-agent-cli-"));
  expect(postern(["db", "migrate"]).code).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("postern agent", () => {
  it(
    "create stores the token's SHA-256 expiring after POSTERN_AGENT_TOKEN_HOURS, and refuses beyond MaxMachines",
    async () => {
      const before = Date.now();
      const created = postern(["agent", "create", "edge", "--json", "--server-url", "https://postern.test"], {
        POSTERN_AGENT_TOKEN_HOURS: "2",
      });
      expect(created.code).toBe(0);
      const token = (JSON.parse(created.stdout) as { Token: string }).Token;
      const stored = (await tokenColumns("edge"))!;
      expect(stored.hash).toBe(createHash("sha256").update(token).digest("hex"));
      expect(stored.expiresAt).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
      expect(stored.expiresAt).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);

      const bad = postern(["agent", "create", "other"], { POSTERN_AGENT_TOKEN_HOURS: "forever" });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("POSTERN_AGENT_TOKEN_HOURS");

      // The free licence covers one machine: "edge" has it.
      expect(postern(["license", "install", "free"]).code).toBe(0);
      const refused = postern(["agent", "create", "second"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        "err.machineLimitReached: MaxMachines 1: the licence covers 1 agent and 1 exists",
      );
      expect(await tokenColumns("second")).toBeUndefined();
    },
    SLOW,
  );

  it(
    "server-key prints the data directory's agent signing key, creating it once (mode 0600)",
    () => {
      const first = postern(["agent", "server-key"]);
      expect(first.code).toBe(0);
      const key = first.stdout.trim();
      expect(Buffer.from(key, "base64").length).toBeGreaterThan(32);
      expect(statSync(join(dir, "data", "agent-signing.key")).mode & 0o777).toBe(0o600);
      expect(postern(["agent", "server-key"]).stdout.trim()).toBe(key);
    },
    SLOW,
  );
});
