/**
 * Approval requests through the API (issue #14 item 1; docs/decisions.md "Approval requests"): a Knoc with
 * RequiresApproval holds a user's grant at Status 2 / ApprovalState "pending" with nothing sent to the agent;
 * GET /api/admin/approvals lists it; approve applies the grant at once (optionally shortened); deny ends it
 * with the reason shown in the user's status; nobody decides their own request; an unanswered request
 * expires in the sweep; group approvers decide through /api/approvals; every step is audited.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inArray } from "drizzle-orm";
import { Errors, GrantStatus } from "@postern/shared";
import type { Acl, Approval, SessionStatus, StatusAcl } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { eventTypeOf } from "../../services/webhooks/events.ts";

const { auditLog, webhookDeliveries } = testTables;

const actor = { adminName: "test-admin", ip: "127.0.0.1" };
let h: Harness;
let seed: Seeded;
let user = "";
let admin = "";

/** Turns RequiresApproval on for the seeded Knoc through the admin API (timeout SECONDS, groups). */
async function requireApproval(timeout = 3600, groups: string[] = []): Promise<void> {
  const acl = (await apiRequest(h, "GET", `/api/admin/acls/${seed.aclId}`, undefined, { cookie: admin })).body as Acl;
  const r = await apiRequest(
    h,
    "PUT",
    `/api/admin/acls/${seed.aclId}`,
    { ...acl, RequiresApproval: true, ApprovalTimeout: timeout, ApproverGroupIDs: groups },
    { cookie: admin },
  );
  expect(r.status).toBe(200);
}

async function signIn(userName: string, password: string, from = "203.0.113.5"): Promise<string> {
  const r = await apiRequest(h, "POST", "/api/login", { UserName: userName, Password: password }, { from });
  expect(r.status).toBe(200);
  return r.setCookie.split(";")[0] ?? "";
}

const entry = async (cookie = user): Promise<StatusAcl> => {
  const r = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
  expect(r.status).toBe(200);
  return (r.body as SessionStatus).ACLs.find((a) => a.ACLID === seed.aclId)!;
};
const ask = async (reason?: string) =>
  await apiRequest(
    h,
    "POST",
    "/api/grant",
    { ACLID: seed.aclId, ...(reason !== undefined ? { Reason: reason } : {}) },
    { cookie: user },
  );
const list = async () =>
  (await apiRequest(h, "GET", "/api/admin/approvals", undefined, { cookie: admin })).body as Approval[];
const audits = async (...actions: string[]) =>
  await h.services.db.select().from(auditLog).where(inArray(auditLog.action, actions)).orderBy(auditLog.id);

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  admin = await signInAdmin(h);
  user = await signIn("alice", "alice-password");
});
afterEach(async () => {
  await h.close();
});

describe("the Knoc option", () => {
  it("is off by default, round-trips, and is validated with the spec-style keys", async () => {
    const before = (await apiRequest(h, "GET", `/api/admin/acls/${seed.aclId}`, undefined, { cookie: admin }))
      .body as Acl;
    expect(before).toMatchObject({ RequiresApproval: false, ApproverGroupIDs: [], ApprovalTimeout: 3600 });
    expect(await entry()).not.toHaveProperty("ApprovalState");
    const bad = await apiRequest(
      h,
      "PUT",
      `/api/admin/acls/${seed.aclId}`,
      { ...before, ApprovalTimeout: 2 },
      { cookie: admin },
    );
    expect(bad).toMatchObject({ status: 400, body: { Err: Errors.invalidApprovalTimeout.err } });
    const unknown = "11111111-1111-4111-8111-111111111111";
    const noGroup = await apiRequest(
      h,
      "PUT",
      `/api/admin/acls/${seed.aclId}`,
      { ...before, RequiresApproval: true, ApproverGroupIDs: [unknown] },
      { cookie: admin },
    );
    expect(noGroup).toMatchObject({ status: 400, body: { Err: Errors.unknownApproverGroup.err, Extra: unknown } });
    await requireApproval(600);
    const after = (await apiRequest(h, "GET", `/api/admin/acls/${seed.aclId}`, undefined, { cookie: admin }))
      .body as Acl;
    expect(after).toMatchObject({ RequiresApproval: true, ApprovalTimeout: 600 });
    // An update that leaves the fields out (the Knoc wizard's) keeps them.
    const { RequiresApproval: _r, ApprovalTimeout: _t, ApproverGroupIDs: _g, ...rest } = after;
    expect((await apiRequest(h, "PUT", `/api/admin/acls/${seed.aclId}`, rest, { cookie: admin })).status).toBe(200);
    expect(
      ((await apiRequest(h, "GET", `/api/admin/acls/${seed.aclId}`, undefined, { cookie: admin })).body as Acl)
        .RequiresApproval,
    ).toBe(true);
  });
});

describe("a request", () => {
  beforeEach(async () => {
    await requireApproval();
  });

  it("holds the grant at Pending with nothing sent, lists it for admins, and is audited once", async () => {
    const r = await ask("deploying the fix");
    expect(r.status).toBe(200);
    expect(await entry()).toMatchObject({
      Status: GrantStatus.Pending,
      RequiresApproval: true,
      ApprovalState: "pending",
      ApprovalReason: "",
      ExpiredAfter: "",
    });
    expect(h.channel.take()).toEqual([]);
    expect(await ask("again")).toMatchObject({ status: 200 });
    const pending = await list();
    expect(pending).toEqual([
      expect.objectContaining({
        UserName: "alice",
        ACLID: seed.aclId,
        ACL: "Intranet",
        IPAddress: "203.0.113.5",
        Reason: "deploying the fix",
        State: "pending",
        DecidedBy: "",
      }),
    ]);
    const requested = await audits("approvalRequested");
    expect(requested).toEqual([
      expect.objectContaining({ userName: "alice", ipAddress: "203.0.113.5", aclDescription: "Intranet" }),
    ]);
    expect(requested[0]!.description).toContain("deploying the fix");
    expect(await audits("clickedToGrant")).toEqual([]);
    expect(eventTypeOf("approvalRequested")).toBe("approval.requested");
    expect(eventTypeOf("approvalApproved")).toBe("approval.decided");
  });

  it("approved, applies the grant at once (shortened to the minutes given) and is audited", async () => {
    await ask();
    const [req] = await list();
    const r = await apiRequest(
      h,
      "POST",
      `/api/admin/approvals/${req!.ID}/approve`,
      { Minutes: 30 },
      { cookie: admin },
    );
    expect(r).toMatchObject({ status: 200, body: { State: "approved", DecidedBy: "root", GrantMinutes: 30 } });
    const ops = h.channel.take();
    expect(ops).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5", user: "alice" })]);
    const expiry = (ops[0] as { expiresAt: number }).expiresAt;
    expect(Math.abs(expiry - (h.clock.now() + 30 * 60_000))).toBeLessThan(5_000);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    expect(await entry()).toMatchObject({ Status: GrantStatus.Granted, ApprovalState: "approved" });
    expect(await audits("approvalApproved", "clickedToGrant")).toEqual([
      expect.objectContaining({ action: "approvalApproved", adminName: "root", userName: "alice" }),
      expect.objectContaining({ action: "clickedToGrant", userName: "alice" }),
    ]);
    const again = await apiRequest(h, "POST", `/api/admin/approvals/${req!.ID}/approve`, {}, { cookie: admin });
    expect(again).toMatchObject({ status: 409, body: { Err: Errors.approvalNotPending.err } });
  });

  it("denied, ends it with the reason shown to the user, nothing applied; asking again makes a new request", async () => {
    await ask();
    const [req] = await list();
    const missing = await apiRequest(
      h,
      "POST",
      `/api/admin/approvals/${req!.ID}/deny`,
      { Reason: "  " },
      { cookie: admin },
    );
    expect(missing).toMatchObject({ status: 400, body: { Err: Errors.denyReasonRequired.err } });
    const r = await apiRequest(
      h,
      "POST",
      `/api/admin/approvals/${req!.ID}/deny`,
      { Reason: "Not during the freeze" },
      { cookie: admin },
    );
    expect(r).toMatchObject({ status: 200, body: { State: "denied", DenyReason: "Not during the freeze" } });
    expect(h.channel.take()).toEqual([]);
    const e = await entry();
    expect(e).toMatchObject({ ApprovalState: "denied", ApprovalReason: "Not during the freeze" });
    expect([GrantStatus.Created, GrantStatus.Revoked]).toContain(e.Status);
    expect(await audits("approvalDenied")).toEqual([
      expect.objectContaining({
        adminName: "root",
        userName: "alice",
        description: expect.stringContaining("Not during the freeze"),
      }),
    ]);
    expect((await apiRequest(h, "POST", `/api/admin/approvals/${req!.ID}/approve`, {}, { cookie: admin })).status).toBe(
      409,
    );
    await ask();
    expect(await entry()).toMatchObject({ Status: GrantStatus.Pending, ApprovalState: "pending" });
    expect((await list()).map((a) => a.State)).toEqual(["pending", "denied"]);
  });

  it("cannot be decided by an approver with the requester's name (403)", async () => {
    await ask();
    const [req] = await list();
    const alice = await signInAdmin(h, "alice");
    for (const path of ["approve", "deny"]) {
      const r = await apiRequest(
        h,
        "POST",
        `/api/admin/approvals/${req!.ID}/${path}`,
        { Reason: "x" },
        { cookie: alice },
      );
      expect(r).toMatchObject({ status: 403, body: { Err: Errors.cannotApproveOwnRequest.err } });
    }
    expect((await list())[0]!.State).toBe("pending");
  });

  it("expires when not answered within its time, and can then not be approved", async () => {
    await requireApproval(60);
    await ask();
    const [req] = await list();
    h.clock.advance(59_000);
    expect(await h.services.approvals.sweep()).toBe(0);
    h.clock.advance(2_000);
    expect(await h.services.approvals.sweep()).toBe(1);
    expect(await entry()).toMatchObject({ ApprovalState: "expired" });
    expect((await entry()).Status).not.toBe(GrantStatus.Pending);
    expect(await audits("approvalExpired")).toEqual([expect.objectContaining({ userName: "alice" })]);
    const r = await apiRequest(h, "POST", `/api/admin/approvals/${req!.ID}/approve`, {}, { cookie: admin });
    expect(r).toMatchObject({ status: 409, body: { Err: Errors.approvalNotPending.err } });
    expect(h.channel.take()).toEqual([]);
  });

  it("is withdrawn when the user revokes the entry or their session ends", async () => {
    await ask();
    const id = (await entry()).ID;
    expect(
      (await apiRequest(h, "DELETE", `/api/sessions/current/granted-acls/${id}`, undefined, { cookie: user })).status,
    ).toBe(200);
    expect(await entry()).toMatchObject({ ApprovalState: null });
    expect((await entry()).Status).not.toBe(GrantStatus.Pending);
    await ask();
    expect((await apiRequest(h, "POST", "/api/logout", {}, { cookie: user })).status).toBeLessThan(300);
    expect(await h.services.approvals.sweep()).toBe(1);
    expect((await list()).map((a) => a.State)).toEqual(["withdrawn", "withdrawn"]);
    expect(await audits("approvalWithdrawn")).toHaveLength(2);
  });

  it("answers 404 for unknown ids, 401 without an admin session, and validates its bodies", async () => {
    const none = "22222222-2222-4222-8222-222222222222";
    expect((await apiRequest(h, "POST", `/api/admin/approvals/${none}/approve`, {}, { cookie: admin })).status).toBe(
      404,
    );
    expect(
      (await apiRequest(h, "POST", `/api/admin/approvals/nope/deny`, { Reason: "x" }, { cookie: admin })).status,
    ).toBe(404);
    expect((await apiRequest(h, "GET", "/api/admin/approvals", undefined, { cookie: user })).status).toBe(401);
    await ask();
    const [req] = await list();
    const zero = await apiRequest(
      h,
      "POST",
      `/api/admin/approvals/${req!.ID}/approve`,
      { Minutes: 0 },
      { cookie: admin },
    );
    expect(zero).toMatchObject({ status: 400, body: { Err: Errors.invalidApprovalMinutes.err } });
    const long = await apiRequest(
      h,
      "POST",
      `/api/admin/approvals/${req!.ID}/deny`,
      { Reason: "x".repeat(501) },
      { cookie: admin },
    );
    expect(long).toMatchObject({ status: 400, body: { Err: Errors.approvalReasonTooLong.err } });
    const tooLong = await ask("y".repeat(501));
    expect(tooLong).toMatchObject({ status: 400, body: { Err: Errors.approvalReasonTooLong.err } });
    expect((await list())[0]!.State).toBe("pending");
  });
});

describe("webhook events", () => {
  it("raise approval.requested and approval.decided through the existing webhook outbox", async () => {
    await requireApproval();
    await h.services.webhooks.create(
      {
        URL: "http://127.0.0.1:9/hook",
        Events: ["approval.requested", "approval.decided"],
        Description: "",
        Enabled: true,
      },
      actor,
    );
    await ask("please");
    const [req] = await list();
    await apiRequest(h, "POST", `/api/admin/approvals/${req!.ID}/deny`, { Reason: "no" }, { cookie: admin });
    await h.services.webhookDispatcher.collect();
    const rows = await h.services.db.select().from(webhookDeliveries).orderBy(webhookDeliveries.createdAt);
    expect(rows.map((r) => r.eventType)).toEqual(["approval.requested", "approval.decided"]);
    const decided = JSON.parse(rows[1]!.payload) as { data: Record<string, unknown> };
    expect(decided.data).toMatchObject({
      Action: "approvalDenied",
      UserName: "alice",
      AdminName: "root",
      ACL: "Intranet",
    });
  });
});

describe("group approvers", () => {
  it("members of an approver group list and decide requests through /api/approvals, never their own", async () => {
    const bobId = await h.services.users.create(
      {
        Name: "Bob",
        UserName: "bob",
        Company: "",
        Duration: 480,
        SessionLimit: null,
        AuthType: "local",
        PlainPassword: "bob-password",
        ConfirmPassword: "bob-password",
        TOTPEnabled: false,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [],
      },
      actor,
    );
    const group = await h.services.groups.create(
      { Name: "leads", Description: "", Type: "local", ACLIDs: [], UserIDs: [bobId, seed.userId] },
      actor,
    );
    await requireApproval(3600, [group]);
    const bob = await signIn("bob", "bob-password", "198.51.100.9");
    await ask("need it");
    const mine = await apiRequest(h, "GET", "/api/approvals", undefined, { cookie: user });
    expect(mine).toMatchObject({ status: 200, body: [] });
    const theirs = (await apiRequest(h, "GET", "/api/approvals", undefined, { cookie: bob })).body as Approval[];
    expect(theirs).toEqual([expect.objectContaining({ UserName: "alice", Reason: "need it" })]);
    const own = await apiRequest(h, "POST", `/api/approvals/${theirs[0]!.ID}/approve`, {}, { cookie: user });
    expect(own).toMatchObject({ status: 403, body: { Err: Errors.cannotApproveOwnRequest.err } });
    const ok = await apiRequest(h, "POST", `/api/approvals/${theirs[0]!.ID}/approve`, {}, { cookie: bob });
    expect(ok).toMatchObject({ status: 200, body: { State: "approved", DecidedBy: "bob" } });
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);
    const decided = await audits("approvalApproved");
    expect(decided[0]!.description).toContain("user bob");
    // Out of the group: the request is not theirs to see (404).
    await ask();
    await h.services.groups.update(
      group,
      { Name: "leads", Description: "", Type: "local", ACLIDs: [], UserIDs: [seed.userId] },
      actor,
    );
    expect(await apiRequest(h, "GET", "/api/approvals", undefined, { cookie: bob })).toMatchObject({ body: [] });
  });
});
