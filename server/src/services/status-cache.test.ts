/**
 * GET /api/status kept per session (issue #13 item 2; services/status-cache.ts): the second read of an
 * unchanged status is served from what was kept, and every kind of change the status shows is in the
 * very next read — grant status changes (through the engine and written by another connection to
 * the same database, as another replica would), ACL edits, direct and group assignments, licence
 * changes and a user's licence rank, the NewUserDashboard setting, the session's address, its end, the
 * user's name, and the passing of time (a grant's and a licence's expiry). Each check reads the
 * status first, so that it is kept, and fails if that kind of change did not invalidate it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { GrantStatus, NONE_ID } from "@postern/shared";
import type { SessionStatus } from "@postern/shared";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../testing/harness.ts";
import type { Harness, Seeded } from "../testing/harness.ts";
import { installTestLicence } from "../testing/licences.ts";
import { openDatabase } from "../db/index.ts";
import type { OpenDatabase } from "../db/index.ts";
import { grants, users } from "../db/schema.ts";
import { setSetting } from "./settings.ts";
import { StatusService } from "./status.ts";

const actor = { adminName: "root", ip: "127.0.0.1" };
let dir: string;
let h: Harness;
let seed: Seeded;
let cookie = "";
let replica: OpenDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-status-cache-"));
  const file = join(dir, "postern.db");
  h = await createHarness(file);
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
  cookie = login.setCookie.split(";")[0] ?? "";
  replica = openDatabase(file);
});
afterEach(async () => {
  await replica.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** GET /api/status as the portal polls it (from 203.0.113.5 unless told). */
async function read(from?: string): Promise<SessionStatus> {
  const r = await apiRequest(h, "GET", "/api/status", undefined, { cookie, ...(from ? { from } : {}) });
  expect(r.status).toBe(200);
  return r.body as SessionStatus;
}
const entry = async (aclId = seed.aclId) => (await read()).ACLs.find((a) => a.ACLID === aclId);

/** A second ACL on the seeded backend, assigned to nobody. */
async function secondAcl(description = "Alpha wiki"): Promise<string> {
  const acl = await h.services.acls.get(seed.aclId);
  return h.services.acls.create(
    { ...acl, Description: description, Config: { UriToken: "", haproxy: { ID: 2 } } },
    actor,
  );
}

describe("GET /api/status kept per session", () => {
  it("serves the second read of an unchanged status from what it kept, with the same text", async () => {
    const make = vi.spyOn(StatusService.prototype as unknown as { make: () => Promise<unknown> }, "make");
    const first = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
    const second = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
    expect(make).toHaveBeenCalledTimes(1);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("content-type")).toBe("application/json");
    make.mockRestore();
  });

  it("shows grant status changes: a grant, its acknowledgement, a revoke", async () => {
    expect((await entry())!.Status).toBe(GrantStatus.Created);
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie })).status).toBe(200);
    const pending = (await entry())!.Status;
    expect(pending).not.toBe(GrantStatus.Created);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    const granted = (await entry())!;
    expect(granted.Status).toBe(GrantStatus.Granted);
    expect(granted.ExpiredAfter).not.toBe("");
    const revoked = await apiRequest(h, "DELETE", `/api/sessions/current/granted-acls/${granted.ID}`, undefined, {
      cookie,
    });
    expect(revoked.status).toBe(200);
    expect((await entry())!.Status).not.toBe(GrantStatus.Granted);
  });

  it("shows a grant row written by another connection to the same database (another replica)", async () => {
    expect((await entry())!.Status).toBe(GrantStatus.Created);
    await replica.db.update(grants).set({ status: GrantStatus.AgentOffline }).where(eq(grants.aclId, seed.aclId));
    expect((await entry())!.Status).toBe(GrantStatus.AgentOffline);
    await replica.db.delete(grants).where(eq(grants.aclId, seed.aclId));
    // The entry is made anew (status 4) under a new id.
    const again = (await entry())!;
    expect(again.Status).toBe(GrantStatus.Created);
  });

  it("shows an ACL edit", async () => {
    await read();
    const acl = await h.services.acls.get(seed.aclId);
    await h.services.acls.update(seed.aclId, { ...acl, Description: "Intranet 2", HideFromUsers: true }, actor);
    expect(await entry()).toMatchObject({ Description: "Intranet 2", HideFromUsers: true });
  });

  it("shows direct assignments and their removal", async () => {
    const second = await secondAcl();
    expect((await read()).ACLs).toHaveLength(1);
    const user = await h.services.users.get(seed.userId);
    await h.services.users.update(seed.userId, { ...user, AclIds: [seed.aclId, second] }, actor);
    expect((await read()).ACLs.map((a) => a.Description)).toEqual(["Alpha wiki", "Intranet"]);
    await h.services.users.update(seed.userId, { ...user, AclIds: [second] }, actor);
    expect((await read()).ACLs.map((a) => a.Description)).toEqual(["Alpha wiki"]);
  });

  it("shows assignments through a group: its ACLs, its members, and the group's deletion", async () => {
    const second = await secondAcl();
    expect((await read()).ACLs).toHaveLength(1);
    const group = { Name: "Wiki", Description: "", Type: "local" as const, ACLIDs: [second], UserIDs: [] as string[] };
    const groupId = await h.services.groups.create(group, actor);
    expect((await read()).ACLs).toHaveLength(1);
    await h.services.groups.update(groupId, { ...group, UserIDs: [seed.userId] }, actor); // group_users
    expect((await read()).ACLs.map((a) => a.ACLID)).toContain(second);
    await h.services.groups.update(groupId, { ...group, UserIDs: [seed.userId], ACLIDs: [] }, actor); // group_acls
    expect((await read()).ACLs.map((a) => a.ACLID)).not.toContain(second);
    await h.services.groups.update(groupId, { ...group, UserIDs: [seed.userId] }, actor);
    expect((await read()).ACLs.map((a) => a.ACLID)).toContain(second);
    await h.services.groups.delete(groupId, actor);
    expect((await read()).ACLs.map((a) => a.ACLID)).not.toContain(second);
  });

  it("shows a licence change and a change of the user's licence rank", async () => {
    expect(await read()).toMatchObject({ Licensed: true, UserLicensed: true });
    await installTestLicence(h, { ID: "one-user", UserLimit: 1, UserLimitOverage: 0 });
    expect(await read()).toMatchObject({ Licensed: true, UserLicensed: true });
    // A user created before Alice takes the one place (written by another connection).
    await replica.db
      .insert(users)
      .values({ id: NONE_ID.replace(/0$/, "1"), name: "Early", userName: "early", authType: "local", createdAt: 0 });
    expect(await read()).toMatchObject({ Licensed: true, UserLicensed: false });
  });

  it("stops showing a licence once it expires, with no write at all", async () => {
    await installTestLicence(h, { ID: "short", Expires: new Date(h.clock.now() + 3_600_000).toISOString() });
    expect(await read()).toMatchObject({ Licensed: true });
    h.clock.advance(3_600_000);
    expect(await read()).toMatchObject({ Licensed: false, UserLicensed: false });
  });

  it("stops showing a grant's expiry once it passed, with no write at all", async () => {
    const acl = await h.services.acls.get(seed.aclId);
    await h.services.acls.update(seed.aclId, { ...acl, MaximumGrantDuration: 600 }, actor);
    await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie });
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    const expiry = Date.parse((await entry())!.ExpiredAfter);
    expect(expiry).toBeGreaterThan(h.clock.now());
    h.clock.advance(expiry - h.clock.now());
    expect((await entry())!.ExpiredAfter).toBe("");
  });

  it("shows the NewUserDashboard setting", async () => {
    expect((await read()).NewUserDashboard).toBe(true);
    await setSetting(h.services.db, "NewUserDashboard", false);
    expect((await read()).NewUserDashboard).toBe(false);
    await setSetting(replica.db, "NewUserDashboard", true);
    expect((await read()).NewUserDashboard).toBe(true);
  });

  it("shows the session's new address, and the user's new name", async () => {
    expect((await read()).CurrentAddress).toBe("203.0.113.5");
    expect((await read("198.51.100.7")).CurrentAddress).toBe("198.51.100.7");
    const user = await h.services.users.get(seed.userId);
    await h.services.users.update(seed.userId, { ...user, Name: "Alice B." }, actor);
    expect((await read("198.51.100.7")).Name).toBe("Alice B.");
  });

  it("answers 401 once the session ended, by logout or by an admin", async () => {
    await read();
    await apiRequest(h, "POST", "/api/logout", undefined, { cookie });
    expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie })).status).toBe(401);

    const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    cookie = login.setCookie.split(";")[0] ?? "";
    await read();
    const admin = await signInAdmin(h);
    expect((await apiRequest(h, "DELETE", "/api/admin/sessions", undefined, { cookie: admin })).status).toBe(204);
    expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie })).status).toBe(401);
  });
});
