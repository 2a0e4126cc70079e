import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../db/index.ts";
import type { Db, OpenDatabase } from "../../db/index.ts";
import { TestClock } from "../../clock.ts";
import { openTestDatabase, testTables } from "../../testing/database.ts";
import { AppError } from "../../errors.ts";
import {
  ACCOUNT_LIMIT,
  ADDRESS_LIMIT,
  BLOCK_MAX_MS,
  CODE_LIMIT,
  IN_FLIGHT_WAIT_MS,
  LoginThrottle,
  WINDOW_MS,
  accountKey,
  addressKey,
  codeKey,
} from "./throttle.ts";

const { loginThrottle } = testTables;

let database: OpenDatabase;
let db: Db;
let clock: TestClock;
let t: LoginThrottle;

beforeEach(async () => {
  database = await openTestDatabase();
  await migrateDatabase(database.db);
  db = database.db;
  clock = new TestClock();
  t = new LoginThrottle(db, clock);
});
afterEach(() => database.close());

/** The 429 a call rejects with, or null when it passes. */
async function refusal(
  call: () => Promise<unknown>,
): Promise<{ status: number; err: string; extra: string | undefined } | null> {
  try {
    await call();
    return null;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { status: e.status, err: e.err, extra: e.extra };
  }
}
/** The 429 a rejected promise carries. */
function refusalOf(e: unknown): { status: number; err: string; extra: string | undefined } {
  if (!(e instanceof AppError)) throw e;
  return { status: e.status, err: e.err, extra: e.extra };
}
const blocked = (seconds: number) => ({
  status: 429,
  err: "Too many requests. Please try again in...",
  extra: String(seconds),
});
/** `n` failed password attempts (begun, then ended as failures). */
async function fail(n: number, name = "alice", ip = "203.0.113.5"): Promise<void> {
  for (let i = 0; i < n; i++) t.loginFailed(await t.beginLogin(name, ip));
}

describe("keys", () => {
  it("keys accounts by lowercased name, long names by their hash", () => {
    expect(accountKey("Alice")).toBe("account:alice");
    expect(codeKey("ALICE")).toBe("code:alice");
    const long = accountKey("x".repeat(1000));
    expect(long).toMatch(/^account:#[0-9a-f]{64}$/);
    expect(long).toBe(accountKey("X".repeat(1000)));
  });

  it("keys IPv4 by address and IPv6 by its /64", () => {
    expect(addressKey("203.0.113.5")).toBe("ip:203.0.113.5");
    expect(addressKey("::ffff:203.0.113.5")).toBe("ip:203.0.113.5");
    expect(addressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("ip:2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2::1")).toBe("ip:2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:3::1")).toBe("ip:2001:db8:1:3::/64");
    expect(addressKey("2001:db8::1")).toBe("ip:2001:db8::/64");
    expect(addressKey("fe80::1")).toBe("ip:fe80::/64");
    expect(addressKey("::1")).toBe("ip:::/64");
    expect(addressKey("")).toBe("ip:");
  });
});

describe("password attempts", () => {
  it("blocks an account at its fifth failure, before any further attempt, for a minute", async () => {
    await fail(ACCOUNT_LIMIT - 1);
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toBeNull(); // the 5th
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toEqual(blocked(60));
    expect(await refusal(() => t.beginLogin("ALICE", "198.51.100.7"))).toEqual(blocked(60)); // any address, any case
    expect(await refusal(() => t.beginLogin("bob", "203.0.113.5"))).toBeNull(); // other accounts are not blocked
    clock.advance(30_000);
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toEqual(blocked(30));
  });

  it("doubles the block with every further failure, up to 15 minutes", async () => {
    await fail(ACCOUNT_LIMIT);
    const waits: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await refusal(() => t.beginLogin("alice", "203.0.113.5"));
      waits.push(r?.extra ?? "");
      clock.advance(Number(r?.extra) * 1000);
      await fail(1); // the block ended: one more try, wrong
    }
    expect(waits).toEqual(["60", "120", "240", "480", "900", "900", "900"]);
    expect((await refusal(() => t.beginLogin("alice", "203.0.113.5")))?.extra).toBe(String(BLOCK_MAX_MS / 1000));
  });

  it("counts per window: failures older than 15 minutes are forgotten", async () => {
    await fail(ACCOUNT_LIMIT - 1);
    clock.advance(WINDOW_MS);
    await fail(ACCOUNT_LIMIT - 1);
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toBeNull();
    expect((await refusal(() => t.beginLogin("alice", "203.0.113.5")))?.status).toBe(429);
  });

  it("forgets a blocked key only 15 quiet minutes after its block ended", async () => {
    await fail(ACCOUNT_LIMIT);
    clock.advance(60_000); // block over
    await fail(1); // blocked again, 2 minutes
    clock.advance(120_000 + WINDOW_MS - 1000);
    await fail(1); // not yet forgotten: this failure blocks for 4 minutes
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toEqual(blocked(240));
    clock.advance(240_000 + WINDOW_MS);
    await fail(ACCOUNT_LIMIT - 1); // forgotten: a fresh count
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toBeNull();
  });

  it("blocks an address at 20 failures over any accounts; IPv6 counts by /64", async () => {
    for (let i = 0; i < ADDRESS_LIMIT; i++) await t.beginLogin(`user${i}`, "203.0.113.5");
    expect(await refusal(() => t.beginLogin("fresh", "203.0.113.5"))).toEqual(blocked(60));
    expect(await refusal(() => t.beginLogin("fresh", "203.0.113.6"))).toBeNull();
    for (let i = 0; i < ADDRESS_LIMIT; i++) await t.beginLogin(`v6user${i}`, `2001:db8:5:6::${i + 1}`);
    expect(await refusal(() => t.beginLogin("fresh2", "2001:db8:5:6:ffff::9"))).toEqual(blocked(60));
    expect(await refusal(() => t.beginLogin("fresh2", "2001:db8:5:7::1"))).toBeNull();
  });

  it("counts an attempt when it begins, so parallel attempts cannot outrun the limit", async () => {
    const inFlight = [];
    for (let i = 0; i < ACCOUNT_LIMIT; i++) inFlight.push(await t.beginLogin("alice", "203.0.113.5"));
    expect((await refusal(() => t.beginLogin("alice", "203.0.113.9")))?.status).toBe(429);
  });

  it("a sign-in blocked only by attempts in flight waits for them; the right ones let it through", async () => {
    const inFlight = await Promise.all(
      Array.from({ length: ACCOUNT_LIMIT }, () => t.beginLogin("alice", "203.0.113.5")),
    );
    let refused = 0;
    const waiting = Array.from({ length: 3 }, () =>
      t.beginAuditedLogin("alice", "203.0.113.5", async () => void refused++),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const attempt of inFlight) await t.loginSucceeded(attempt);
    const started = await Promise.all(waiting);
    expect(started).toHaveLength(3);
    expect(refused).toBe(0);
    for (const attempt of started) await t.loginSucceeded(attempt);
    expect(await db.select().from(loginThrottle)).toEqual([]);
  });

  it("a sign-in waiting on attempts in flight is refused once they turn out wrong", async () => {
    const inFlight = await Promise.all(
      Array.from({ length: ACCOUNT_LIMIT }, () => t.beginLogin("alice", "203.0.113.5")),
    );
    let refused = 0;
    const waiting = t.beginAuditedLogin("alice", "203.0.113.5", async () => void refused++);
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const attempt of inFlight) t.loginFailed(attempt);
    expect(await waiting.then(() => null, refusalOf)).toEqual(blocked(60));
    expect(refused).toBe(1);
  });

  it("a key blocked by failures that ended is refused at once, with no wait", async () => {
    await fail(ACCOUNT_LIMIT);
    const startedAt = performance.now();
    let refused = 0;
    const outcome = await t
      .beginAuditedLogin("alice", "203.0.113.5", async () => void refused++)
      .then(() => null, refusalOf);
    expect(outcome).toEqual(blocked(60));
    expect(refused).toBe(1);
    expect(performance.now() - startedAt).toBeLessThan(IN_FLIGHT_WAIT_MS / 2);
  });

  it("a success clears the account key and takes the attempt back from the address key only", async () => {
    await fail(ACCOUNT_LIMIT - 1);
    await t.loginSucceeded(await t.beginLogin("alice", "203.0.113.5")); // the 5th attempt, right: not blocked
    expect((await db.select().from(loginThrottle)).map((r) => [r.key, r.failures, r.blockedUntil])).toEqual([
      ["ip:203.0.113.5", ACCOUNT_LIMIT - 1, null],
    ]);
    await fail(ACCOUNT_LIMIT - 1);
    expect(await refusal(() => t.beginLogin("alice", "203.0.113.5"))).toBeNull();
  });

  it("a success at an address's 20th attempt does not leave the address blocked", async () => {
    for (let i = 0; i < ADDRESS_LIMIT - 1; i++) await t.beginLogin(`user${i}`, "203.0.113.5");
    await t.loginSucceeded(await t.beginLogin("alice", "203.0.113.5"));
    expect(await refusal(() => t.beginLogin("other", "203.0.113.5"))).toBeNull(); // the 20th failure
    expect((await refusal(() => t.beginLogin("other2", "203.0.113.5")))?.status).toBe(429);
  });

  it("an abandoned attempt (no password tested) counts for neither key", async () => {
    for (let i = 0; i < 10; i++) await t.loginAbandoned(await t.beginLogin("alice", "203.0.113.5"));
    expect(await db.select().from(loginThrottle)).toEqual([]);
  });

  it("sweeps forgotten rows", async () => {
    await fail(1, "a");
    await fail(1, "b");
    clock.advance(WINDOW_MS + 60_000);
    await fail(1, "c", "198.51.100.1");
    expect((await db.select().from(loginThrottle)).map((r) => r.key).sort()).toEqual(["account:c", "ip:198.51.100.1"]);
  });
});

describe("2FA codes", () => {
  it("blocks an account's codes at the fifth wrong code; a right code clears them", async () => {
    for (let i = 0; i < CODE_LIMIT - 1; i++) {
      expect(await refusal(() => t.checkCode("alice", "203.0.113.5"))).toBeNull();
      await t.recordCodeFailure("alice", "203.0.113.5");
    }
    await t.recordCodeSuccess("alice");
    for (let i = 0; i < CODE_LIMIT; i++) {
      expect(await refusal(() => t.checkCode("alice", "203.0.113.5"))).toBeNull();
      await t.recordCodeFailure("alice", "203.0.113.5");
    }
    expect(await refusal(() => t.checkCode("Alice", "198.51.100.7"))).toEqual(blocked(60));
    clock.advance(60_000);
    expect(await refusal(() => t.checkCode("alice", "203.0.113.5"))).toBeNull();
  });

  it("keeps codes apart from passwords: a right password does not clear wrong codes", async () => {
    for (let i = 0; i < CODE_LIMIT; i++) await t.recordCodeFailure("alice", "203.0.113.5");
    await t.loginSucceeded(await t.beginLogin("alice", "203.0.113.5"));
    expect((await refusal(() => t.checkCode("alice", "203.0.113.5")))?.status).toBe(429);
  });

  it("counts wrong codes against the address too", async () => {
    for (let i = 0; i < ADDRESS_LIMIT; i++) await t.recordCodeFailure(`user${i}`, "203.0.113.5");
    expect(await refusal(() => t.checkCode("fresh", "203.0.113.5"))).toEqual(blocked(60));
    expect(await refusal(() => t.beginLogin("fresh", "203.0.113.5"))).toEqual(blocked(60));
  });
});
