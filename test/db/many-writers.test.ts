/**
 * Many writers on one PostgreSQL database (issue #12 items 3 and 9): two in-process "replicas" — each
 * its own services, app and connection pool — on one database, sent requests at the same moment.
 * Concurrent sign-ins across them cannot outrun the login throttle; one address granted on both keeps
 * one entry, held until the last of its grants ends; two admins creating one name get one 201 and one
 * 409. Runs on PostgreSQL whatever the suite runs on (its own cluster when the suite is on SQLite).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConfiguredDatabase } from "../../server/src/db/index.ts";
import { ACCOUNT_LIMIT } from "../../server/src/services/auth/throttle.ts";
import { apiRequest, harnessOn, seedLoop, signInAdmin } from "../../server/src/testing/harness.ts";
import type { Harness } from "../../server/src/testing/harness.ts";
import { freshPostgresDatabase, postgresBinDir } from "../support/postgres.ts";
import type { FreshPostgresDatabase } from "../support/postgres.ts";

const hasPostgres = postgresBinDir() !== undefined;
if (!hasPostgres) console.warn("PostgreSQL is not installed: skipping test/db/many-writers.test.ts");

describe.skipIf(!hasPostgres)("many writers on one PostgreSQL database", () => {
  let pg: FreshPostgresDatabase;
  let a: Harness;
  let b: Harness;

  beforeEach(async () => {
    pg = await freshPostgresDatabase();
    a = harnessOn(openConfiguredDatabase({ url: pg.url, file: "" }));
    b = harnessOn(openConfiguredDatabase({ url: pg.url, file: "" }));
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await pg.close();
  });

  const login = (h: Harness, password: string, from = "203.0.113.5") =>
    apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: password, KioskMode: false }, { from });

  it("concurrent failed sign-ins on two replicas test at most the account limit's worth of guesses", async () => {
    await seedLoop(a);
    // 24 wrong passwords at once, half on each replica, each from its own address (only the account limit applies).
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => login(i % 2 === 0 ? a : b, `wrong-${i}`, `198.51.100.${i + 1}`)),
    );
    const statuses = results.map((r) => r.status);
    const tested = statuses.filter((s) => s === 401).length;
    expect(
      statuses.every((s) => s === 401 || s === 429),
      statuses.join(","),
    ).toBe(true);
    expect(tested).toBeGreaterThan(0);
    expect(tested).toBeLessThanOrEqual(ACCOUNT_LIMIT);
    // The account is blocked on both replicas now, even for the right password.
    expect((await login(a, "alice-password")).status).toBe(429);
    expect((await login(b, "alice-password")).status).toBe(429);
  });

  it("one address granted on both replicas at once is one entry, held until the last grant ends", async () => {
    const seeded = await seedLoop(a);
    a.channel.online.add(seeded.agentId);
    b.channel.online.add(seeded.agentId);
    const [sa, sb] = [await login(a, "alice-password"), await login(b, "alice-password")];
    const cookieA = sa.setCookie.split(";")[0] ?? "";
    const cookieB = sb.setCookie.split(";")[0] ?? "";
    const grants = await Promise.all([
      apiRequest(a, "POST", "/api/grant", { ACLID: seeded.aclId, IPs: [] }, { cookie: cookieA }),
      apiRequest(b, "POST", "/api/grant", { ACLID: seeded.aclId, IPs: [] }, { cookie: cookieB }),
    ]);
    expect(grants.map((g) => g.status)).toEqual([200, 200]);
    const desired = await a.services.engine.desiredState(seeded.agentId);
    expect(desired[0]?.entries.map((e) => e.ip)).toEqual(["203.0.113.5"]);
    a.channel.take();
    b.channel.take();

    // The first grant ends: the other still holds the address, so no replica sends a delete.
    const statusA = (await apiRequest(a, "GET", "/api/status", undefined, { cookie: cookieA })).body as {
      ACLs: { ID: string; ACLID: string }[];
    };
    const entryA = statusA.ACLs.find((g) => g.ACLID === seeded.aclId)!;
    expect(
      (await apiRequest(a, "DELETE", `/api/sessions/current/granted-acls/${entryA.ID}`, undefined, { cookie: cookieA }))
        .status,
    ).toBe(200);
    expect([...a.channel.take(), ...b.channel.take()].filter((o) => o.op === "del")).toEqual([]);
    expect((await a.services.engine.desiredState(seeded.agentId))[0]?.entries.map((e) => e.ip)).toEqual([
      "203.0.113.5",
    ]);

    // The last one ends on the other replica: now the address leaves.
    const statusB = (await apiRequest(b, "GET", "/api/status", undefined, { cookie: cookieB })).body as {
      ACLs: { ID: string; ACLID: string }[];
    };
    const entryB = statusB.ACLs.find((g) => g.ACLID === seeded.aclId)!;
    await apiRequest(b, "DELETE", `/api/sessions/current/granted-acls/${entryB.ID}`, undefined, { cookie: cookieB });
    expect(
      b.channel
        .take()
        .filter((o) => o.op === "del")
        .map((o) => o.ip),
    ).toEqual(["203.0.113.5"]);
    expect((await a.services.engine.desiredState(seeded.agentId))[0]?.entries).toEqual([]);
  });

  it("two admins creating the same group name on two replicas get one 201 and one 409", async () => {
    const cookieA = await signInAdmin(a, "root");
    const cookieB = await signInAdmin(b, "other");
    const results = await Promise.all([
      apiRequest(
        a,
        "POST",
        "/api/admin/groups",
        { Name: "ops", Description: "", Type: "local", ACLIDs: [], UserIDs: [] },
        { cookie: cookieA },
      ),
      apiRequest(
        b,
        "POST",
        "/api/admin/groups",
        { Name: "ops", Description: "", Type: "local", ACLIDs: [], UserIDs: [] },
        { cookie: cookieB },
      ),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const list = (await apiRequest(a, "GET", "/api/admin/groups", undefined, { cookie: cookieA })).body as {
      Name: string;
    }[];
    expect(list.filter((g) => g.Name === "ops")).toHaveLength(1);
  });
});
