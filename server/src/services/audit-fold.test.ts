import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asc } from "drizzle-orm";
import { testTables } from "../testing/database.ts";
import { createHarness } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { AuditAction } from "./audit.ts";
import { FOLD_WINDOW_MS, MAX_FOLD_KEYS, flushFoldedAudits, foldKey, writeFoldedAudit } from "./audit-fold.ts";

const { auditFolds, auditLog } = testTables;

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const entries = async () => await h.services.db.select().from(auditLog).orderBy(asc(auditLog.id));
const refuse = async (ip: string, description = "refused") =>
  await writeFoldedAudit(h.services.db, {
    action: AuditAction.apiKeyAccessDenied,
    at: h.clock.now(),
    ipAddress: ip,
    description,
  });

describe("audit folding", () => {
  it("keys by action and address, IPv6 by its /64", () => {
    const a = foldKey({ action: AuditAction.apiKeyAccessDenied, at: 0, ipAddress: "2001:db8:1:2::7" });
    expect(a).toBe("apiKeyAccessDenied:2001:db8:1:2::/64");
    expect(foldKey({ action: AuditAction.apiKeyAccessDenied, at: 0, ipAddress: "2001:db8:1:2:ffff::1" })).toBe(a);
    expect(foldKey({ action: AuditAction.allowlistAccessDenied, at: 0, ipAddress: "2001:db8:1:2::7" })).not.toBe(a);
  });

  it("writes the summary at the key's next entry after the minute, before that entry", async () => {
    await refuse("192.0.2.1", "first");
    h.clock.advance(1000);
    await refuse("192.0.2.1", "second");
    await refuse("192.0.2.1", "third");
    expect((await entries()).map((e) => e.description)).toEqual(["first"]);
    h.clock.advance(FOLD_WINDOW_MS);
    await refuse("192.0.2.1", "fourth");
    expect((await entries()).map((e) => e.description)).toEqual([
      "first",
      "third (Count: 2 more like this from this address in the minute)",
      "fourth",
    ]);
    // A minute that folded nothing leaves no summary.
    h.clock.advance(FOLD_WINDOW_MS);
    expect(await flushFoldedAudits(h.services.db, h.clock.now())).toBe(0);
    expect(await h.services.db.select().from(auditFolds)).toHaveLength(0);
  });

  it("folds new addresses into the action's overflow key once MAX_FOLD_KEYS are kept", async () => {
    const now = h.clock.now();
    await h.services.db.transaction(async (tx) => {
      for (let i = 0; i < MAX_FOLD_KEYS; i++)
        await tx.insert(auditFolds).values({ key: `filler:${i}`, windowStart: now, folded: 0, last: null });
    });
    for (let i = 0; i < 50; i++) await refuse(`2001:db8:${i.toString(16)}::1`);
    expect(await entries()).toHaveLength(1);
    h.clock.advance(FOLD_WINDOW_MS);
    await flushFoldedAudits(h.services.db, h.clock.now());
    expect((await entries()).at(-1)?.description).toBe(
      "refused (Count: 49 more like this from new addresses in the minute)",
    );
  });
});
