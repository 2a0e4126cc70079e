import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { GrantStatus } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, unfoldAudits } from "../../testing/harness.ts";
import { FOLD_WINDOW_MS, flushFoldedAudits } from "../../services/audit-fold.ts";
import type { ApiResult, Harness, Seeded } from "../../testing/harness.ts";

const { acls, auditLog } = testTables;

let h: Harness;
let seed: Seeded;
const actor = { adminName: "setup", ip: "127.0.0.1" };
const NONE = "00000000-0000-0000-0000-000000000000";
/** The Tokens the server minted for listA and listB. */
let TOKEN_A = "";
let TOKEN_B = "";
/** Allowlist ACL readable with a key only. */
let listA = "";
/** Allowlist ACL readable by source address from 192.0.2.0/24 and 2001:db8:feed::/48 (or with a key). */
let listB = "";
/** Session ids by the address they signed in from. */
const sessions = new Map<string, string>();

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});
/** One read; each refusal is audited on its own (folding is unfolded after every read, see unfoldAudits). */
const read = async (aclId: string, file: string, opts: { headers?: Record<string, string>; from?: string } = {}) => {
  const r = await apiRequest(h, "GET", `/api/v1/allowlists/${aclId}/${file}`, undefined, opts);
  await unfoldAudits(h);
  return r;
};
const denied = async () =>
  await h.services.db.select().from(auditLog).where(eq(auditLog.action, "allowlistAccessDenied"));

/** The Token the server minted for an allowlist ACL. */
const tokenOf = async (aclId: string) => (await h.services.acls.get(aclId)).Config.allowlist?.Token ?? "";

async function createAllowlistAcl(name: string, allowlist: Record<string, unknown>): Promise<string> {
  const backendId = await h.services.backends.create(
    { Name: `backend-${name}`, AgentID: NONE, Config: { allowlist: {} } },
    actor,
  );
  const base = await h.services.acls.get(seed.aclId);
  return await h.services.acls.create(
    {
      ...base,
      Description: name,
      BackendID: backendId,
      MaximumGrantDuration: 3600,
      Config: {
        UriToken: "",
        allowlist: { Token: "", ApiKeyId: NONE, AllowAccessByIp: false, AllowedIpAddresses: [], ...allowlist },
      },
    },
    actor,
  );
}

async function createKey(
  name: string,
  scopes: string[],
  more: { AllowedFrom?: { Prefix: string; Note: string }[]; ExpiredAfter?: string | null } = {},
): Promise<{ ID: string; PlaintextKey: string }> {
  const k = await h.services.apiKeys.create(
    {
      Name: name,
      Scopes: scopes,
      ExpiredAfter: more.ExpiredAfter ?? null,
      ...(more.AllowedFrom ? { AllowedFrom: more.AllowedFrom } : {}),
    },
    actor,
  );
  return { ID: k.ID, PlaintextKey: k.PlaintextKey! };
}

/** Signs alice in from `ip` and grants both allowlists (status 6 Published). */
async function publishFrom(ip: string): Promise<void> {
  const { session } = await h.services.userSessions.login({
    userName: "alice",
    password: "alice-password",
    kiosk: false,
    ip,
  });
  sessions.set(ip, session.sessionId);
  for (const acl of [listA, listB])
    await h.services.engine.grant(session.sessionId, acl, { userName: "alice", ip, click: true });
}

function expectChallenge(r: ApiResult): void {
  expect(r.status).toBe(401);
  expect(r.body).toEqual({ Err: "Unauthorised" });
  expect(r.headers.get("www-authenticate")).toMatch(/^Basic realm="postern"/);
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  // Prefixes without AllowAccessByIp grant nothing.
  listA = await createAllowlistAcl("Vendor A", {
    AllowedIpAddresses: [{ Prefix: "192.0.2.0/24", Note: "" }],
  });
  listB = await createAllowlistAcl("Vendor B", {
    AllowAccessByIp: true,
    AllowedIpAddresses: [
      { Prefix: "192.0.2.0/24", Note: "vendor" },
      { Prefix: "2001:db8:feed::/48", Note: "" },
      { Prefix: "junk", Note: "ignored" },
    ],
  });
  TOKEN_A = await tokenOf(listA);
  TOKEN_B = await tokenOf(listB);
  const u = await h.services.users.get(seed.userId);
  await h.services.users.update(
    seed.userId,
    {
      ...u,
      AclIds: [seed.aclId, listA, listB],
      PlainPassword: undefined,
      ConfirmPassword: undefined,
      ValidUntil: null,
    },
    actor,
  );
  sessions.clear();
  for (const ip of ["198.51.100.20", "198.51.100.3", "2001:db8::5", "198.51.100.3"]) await publishFrom(ip);
});
afterEach(async () => {
  await h.close();
});

describe("GET /api/v1/allowlists/{aclId}/{token}.txt|.json", () => {
  it("serves the published addresses as text and JSON to a key with the allowlist scope", async () => {
    const key = await createKey("reader", [`allowlist.read:${listA}`]);
    const txt = await read(listA, `${TOKEN_A}.txt`, { headers: basic("anything", key.PlaintextKey) });
    expect(txt.status).toBe(200);
    expect(txt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(txt.headers.get("cache-control")).toBe("private, no-cache");
    // One line per address, each distinct address once (two sessions share 198.51.100.3), sorted, trailing newline.
    expect(txt.body).toBe("198.51.100.20\n198.51.100.3\n2001:db8::5\n");
    const json = await read(listA, `${TOKEN_A}.json`, { headers: basic("", key.PlaintextKey) });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.body).toEqual(["198.51.100.20", "198.51.100.3", "2001:db8::5"]);
    // The key as user name with an empty password (curl -u key:) and as a Bearer token work too.
    expect((await read(listA, `${TOKEN_A}.json`, { headers: basic(key.PlaintextKey, "") })).status).toBe(200);
    expect(
      (await read(listA, `${TOKEN_A}.json`, { headers: { authorization: `Bearer ${key.PlaintextKey}` } })).status,
    ).toBe(200);
    expect(await denied()).toHaveLength(0);
    // A revoked grant leaves the list; the list follows the grants.
    const s = sessions.get("198.51.100.20")!;
    const entryId = (
      await h.services.status.status({
        sessionId: s,
        userId: seed.userId,
        userName: "alice",
        name: "Alice",
        authType: "local",
        endsAt: h.clock.now() + 3_600_000,
        ipAddress: "198.51.100.20",
        validUntil: null,
      })
    ).ACLs.find((a) => a.ACLID === listA)!;
    expect(entryId.Status).toBe(GrantStatus.Published);
    await h.services.engine.revokeEntry(s, entryId.ID, { userName: "alice", ip: "198.51.100.20" });
    expect((await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) })).body).toBe(
      "198.51.100.3\n2001:db8::5\n",
    );
    // Past their expiry (MaximumGrantDuration 3600 s) no address is served, even before the sweep.
    h.clock.advance(3_601_000);
    expect((await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) })).body).toBe("");
    expect((await read(listA, `${TOKEN_A}.json`, { headers: basic("x", key.PlaintextKey) })).body).toEqual([]);
  });

  it("answers 304 to an If-None-Match of the list's ETag, after the same checks, until the list changes", async () => {
    const key = await createKey("reader", [`allowlist.read:${listA}`]);
    const auth = basic("x", key.PlaintextKey);
    const first = await read(listA, `${TOKEN_A}.txt`, { headers: auth });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    // The JSON of the same list carries the same tag (it names the addresses, not the format).
    expect((await read(listA, `${TOKEN_A}.json`, { headers: auth })).headers.get("etag")).toBe(etag);
    const again = await read(listA, `${TOKEN_A}.txt`, { headers: { ...auth, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(
      (await read(listA, `${TOKEN_A}.txt`, { headers: { ...auth, "if-none-match": `"other", W/${etag}` } })).status,
    ).toBe(304);
    // No 304 without access: the tag tells nothing to whoever cannot read the list.
    expectChallenge(await read(listA, `${TOKEN_A}.txt`, { headers: { "if-none-match": etag } }));
    expect((await read(listA, `wrong.txt`, { headers: { ...auth, "if-none-match": etag } })).status).toBe(404);
    // A write unrelated to the list rebuilds it with the same tag: still 304.
    await createKey("unrelated", [`allowlist.read:${listB}`]);
    expect((await read(listA, `${TOKEN_A}.txt`, { headers: { ...auth, "if-none-match": etag } })).status).toBe(304);
    // A new address changes the list and its tag.
    await publishFrom("198.51.100.77");
    const changed = await read(listA, `${TOKEN_A}.txt`, { headers: { ...auth, "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.body).toBe("198.51.100.20\n198.51.100.3\n198.51.100.77\n2001:db8::5\n");
    expect(changed.headers.get("etag")).not.toBe(etag);
    // Expiry changes it with no write at all.
    h.clock.advance(3_601_000);
    const expired = await read(listA, `${TOKEN_A}.txt`, {
      headers: { ...auth, "if-none-match": changed.headers.get("etag")! },
    });
    expect(expired.status).toBe(200);
    expect(expired.body).toBe("");
  });

  it("sets LastUsedAt on use, at most once a minute", async () => {
    const key = await createKey("reader", [`allowlist.read:${listA}`]);
    expect((await h.services.apiKeys.get(key.ID)).LastUsedAt).toBeNull();
    await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) });
    const first = (await h.services.apiKeys.get(key.ID)).LastUsedAt;
    expect(first).not.toBeNull();
    h.clock.advance(30_000);
    await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) });
    expect((await h.services.apiKeys.get(key.ID)).LastUsedAt).toBe(first);
    h.clock.advance(31_000);
    await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) });
    expect(Date.parse((await h.services.apiKeys.get(key.ID)).LastUsedAt!)).toBeGreaterThan(Date.parse(first!));
  });

  it("answers 404 for a wrong token, an unknown ACL or a non-allowlist ACL alike, and audits each", async () => {
    const key = await createKey("reader", [`allowlist.read:${listA}`]);
    const auth = { headers: basic("x", key.PlaintextKey) };
    const unknownPath = await apiRequest(h, "GET", "/api/v1/nothing-here");
    for (const [acl, file] of [
      [listA, `${TOKEN_B}.txt`],
      [listA, `${TOKEN_A.slice(0, -1)}.txt`],
      [listA, `${TOKEN_A}x.json`],
      [listA, `${TOKEN_A}.csv`],
      ["11111111-1111-4111-8111-111111111111", `${TOKEN_A}.txt`],
      [seed.aclId, `${TOKEN_A}.txt`],
      [seed.aclId, ".txt"],
    ] as const) {
      const r = await read(acl, file, auth);
      expect(r).toMatchObject({ status: 404, body: unknownPath.body });
      expect(r.headers.get("www-authenticate")).toBeNull();
    }
    // Five refusals reached the allowlist check and were audited (".csv" and an empty token match no file).
    const entries = await denied();
    expect(entries).toHaveLength(5);
    expect(entries[0]).toMatchObject({
      aclDescription: "Vendor A",
      description: "wrong allowlist token",
      ipAddress: "203.0.113.5",
    });
    expect(entries[3]).toMatchObject({ aclDescription: "", description: expect.stringContaining("no allowlist ACL") });
  });

  it("refuses an allowlist whose token is empty", async () => {
    const empty = await createAllowlistAcl("No token", {
      AllowAccessByIp: true,
      AllowedIpAddresses: [{ Prefix: "0.0.0.0/0", Note: "" }],
    });
    // Only a row stored before the server minted every Token can have an empty one.
    const row = (await h.services.db.select().from(acls).where(eq(acls.id, empty)).limit(1))[0]!;
    const config = { ...row.config, allowlist: { ...(row.config["allowlist"] as object), Token: "" } };
    await h.services.db.update(acls).set({ config }).where(eq(acls.id, empty));
    expect((await read(empty, ".txt", { from: "192.0.2.1" })).status).toBe(404);
    expect((await read(empty, "x.txt", { from: "192.0.2.1" })).status).toBe(404);
    await expect(h.services.apiKeys.readAllowlist(empty, "", undefined, "192.0.2.1")).rejects.toThrow(
      expect.objectContaining({ status: 404 }),
    );
    expect(await denied()).toHaveLength(2);
  });

  it("refuses without credentials (401 challenge) and with a wrong, malformed or expired key (401), audited", async () => {
    const key = await createKey("reader", [`allowlist.read:${listA}`], {
      ExpiredAfter: new Date(h.clock.now() + 60_000).toISOString(),
    });
    const [, id, secret] = /^pst_([0-9a-f]{32})_(.+)$/.exec(key.PlaintextKey)!;
    const wrongSecret = `pst_${id}_${secret!.slice(0, -1)}${secret!.endsWith("A") ? "B" : "A"}`;
    const otherId = `pst_${"0".repeat(32)}_${secret}`;
    const attempts: Record<string, string>[] = [
      {},
      basic("x", wrongSecret),
      basic("x", otherId),
      basic("x", "not-a-key"),
      basic("x", key.PlaintextKey.toUpperCase()),
      { authorization: "Basic !!!" },
      { authorization: "Digest username=x" },
      { authorization: "Basic " + Buffer.from("no-colon").toString("base64") },
    ];
    for (const headers of attempts) expectChallenge(await read(listA, `${TOKEN_A}.txt`, { headers }));
    expect(await denied()).toHaveLength(attempts.length);
    // AllowAccessByIp is off on this list: a source inside its prefixes still needs a key.
    expectChallenge(await read(listA, `${TOKEN_A}.txt`, { from: "192.0.2.1" }));
    expect(await denied()).toHaveLength(attempts.length + 1);
    expect((await denied())[0]).toMatchObject({ aclDescription: "Vendor A", description: "no API key presented" });
    expect((await denied())[1]!.description).toContain("unknown or malformed API key");
    // The body never says which part was wrong.
    expect((await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", wrongSecret) })).body).toEqual(
      (await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", otherId) })).body,
    );
    expect((await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) })).status).toBe(200);
    h.clock.advance(60_000);
    expectChallenge(await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", key.PlaintextKey) }));
    expect((await denied()).at(-1)).toMatchObject({ description: 'API key "reader" has expired' });
  });

  it("refuses a key lacking the scope or used from outside its AllowedFrom (403), audited", async () => {
    const other = await createKey("other list", [`allowlist.read:${listB}`, "user.sessions"]);
    const r1 = await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", other.PlaintextKey) });
    expect(r1).toMatchObject({ status: 403, body: { Err: "Unauthorised" } });
    expect(r1.headers.get("www-authenticate")).toBeNull();
    expect((await denied()).at(-1)).toMatchObject({
      aclDescription: "Vendor A",
      description: `API key "other list" lacks scope allowlist.read:${listA}`,
    });
    const fenced = await createKey("fenced", [`allowlist.read:${listA}`], {
      AllowedFrom: [
        { Prefix: "192.0.2.0/24", Note: "" },
        { Prefix: "2001:db8:1::/48", Note: "" },
      ],
    });
    expect(
      (await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", fenced.PlaintextKey), from: "192.0.2.200" })).status,
    ).toBe(200);
    expect(
      (await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", fenced.PlaintextKey), from: "2001:db8:1::7" })).status,
    ).toBe(200);
    expect(
      (await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", fenced.PlaintextKey), from: "::ffff:192.0.2.9" }))
        .status,
    ).toBe(200);
    for (const from of ["192.0.3.1", "2001:db8:2::7", "203.0.113.5"]) {
      expect(await read(listA, `${TOKEN_A}.txt`, { headers: basic("x", fenced.PlaintextKey), from })).toMatchObject({
        status: 403,
        body: { Err: "Unauthorised" },
      });
    }
    expect(await denied()).toHaveLength(4);
    expect((await denied()).at(-1)).toMatchObject({
      ipAddress: "203.0.113.5",
      description: 'API key "fenced" used from outside its AllowedFrom',
    });
  });

  it("lets a key read the allowlist whose ApiKeyId names it, without the scope stored", async () => {
    const key = await createKey("wizard", []);
    const linked = await createAllowlistAcl("Linked", { ApiKeyId: key.ID });
    expect(
      await read(linked, `${await tokenOf(linked)}.json`, { headers: basic("x", key.PlaintextKey) }),
    ).toMatchObject({
      status: 200,
      body: [],
    });
    expect((await read(listA, `${TOKEN_A}.json`, { headers: basic("x", key.PlaintextKey) })).status).toBe(403);
  });

  it("AllowAccessByIp: serves sources inside the ACL's prefixes without a key, challenges others", async () => {
    for (const from of ["192.0.2.1", "192.0.2.254", "2001:db8:feed:1::1"]) {
      const r = await read(listB, `${TOKEN_B}.json`, { from });
      expect(r).toMatchObject({ status: 200, body: ["198.51.100.20", "198.51.100.3", "2001:db8::5"] });
    }
    expect(await denied()).toHaveLength(0);
    for (const from of ["192.0.3.1", "2001:db8:fee0::1", "203.0.113.5"])
      expectChallenge(await read(listB, `${TOKEN_B}.txt`, { from }));
    expect(await denied()).toHaveLength(3);
    expect((await denied())[0]).toMatchObject({
      aclDescription: "Vendor B",
      ipAddress: "192.0.3.1",
      description: "no API key, and the source is outside the allowed addresses",
    });
    // Outside the prefixes, a key with the scope works.
    const key = await createKey("b reader", [`allowlist.read:${listB}`]);
    expect(
      (await read(listB, `${TOKEN_B}.txt`, { headers: basic("x", key.PlaintextKey), from: "203.0.113.5" })).status,
    ).toBe(200);
    // A presented key decides alone: a bad one is refused even from an allowed source.
    expectChallenge(await read(listB, `${TOKEN_B}.txt`, { headers: basic("x", "pst_bad"), from: "192.0.2.1" }));
    const noScope = await createKey("no scope", ["user.sessions"]);
    expect(
      (await read(listB, `${TOKEN_B}.txt`, { headers: basic("x", noScope.PlaintextKey), from: "192.0.2.1" })).status,
    ).toBe(403);
    expect(await denied()).toHaveLength(5);
  });
});

describe("a flood of refused reads (audit folding)", () => {
  it("writes one entry per address and minute, then one with the Count of the rest", async () => {
    const flood = (from: string) =>
      apiRequest(h, "GET", `/api/v1/allowlists/${listA}/${TOKEN_B}.txt`, undefined, { from });
    for (let i = 0; i < 300; i++) expect((await flood("203.0.113.5")).status).toBe(404);
    expect((await flood("198.51.100.3")).status).toBe(404);
    expect((await denied()).map((e) => e.ipAddress)).toEqual(["203.0.113.5", "198.51.100.3"]);
    // The minute ends: the server's sweep writes the summary of what was folded.
    h.clock.advance(FOLD_WINDOW_MS);
    expect(await flushFoldedAudits(h.services.db, h.clock.now())).toBe(1);
    expect(await denied()).toHaveLength(3);
    expect((await denied())[2]).toMatchObject({
      ipAddress: "203.0.113.5",
      aclDescription: "Vendor A",
      description: "wrong allowlist token (Count: 299 more like this from this address in the minute)",
    });
    // A new minute starts with an entry of its own.
    await flood("203.0.113.5");
    expect(await denied()).toHaveLength(4);
    expect((await denied())[3]).toMatchObject({ description: "wrong allowlist token" });
  });
});
