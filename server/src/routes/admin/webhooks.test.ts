/**
 * /api/admin/webhooks (issue #14 items 4, 8): validation, the secret answered once and sealed at rest, change,
 * delete, audit, the events raised from the audit log (only committed entries, only after the webhook exists,
 * only the subscribed types), the outbox surviving a restart and the retry schedule on the test clock.
 * Deliveries here go to a closed loopback port (the HTTP boundary refuses them); signature verification by a real
 * receiver is test/e2e/webhooks.e2e.test.ts.
 */
import { createServer } from "node:net";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Webhook, WebhookDelivery, WebhookEventTypes } from "@postern/shared";
import { WEBHOOK_EVENT_TYPES } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { createLogger } from "../../logger.ts";
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  WebhookDispatcher,
  secretPurpose,
} from "../../services/webhooks/dispatcher.ts";
import { dueDeliveryIds } from "../../repositories/webhooks.ts";
import { dialectOf } from "../../db/index.ts";
import { AuditAction, writeAudit } from "../../services/audit.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { holdAuditWrite } from "../../testing/audit.ts";

const { auditLog, auditOutbox, webhookDeliveries, webhooks } = testTables;

let h: Harness;
let seed: Seeded;
let admin = "";
/** A loopback URL nothing listens on (connections are refused). */
let closedUrl = "";

const call = (method: string, path: string, body?: unknown) =>
  apiRequest(h, method, `/api/admin/webhooks${path}`, body, { cookie: admin });
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const deliveryRows = async () => await h.services.db.select().from(webhookDeliveries);

async function create(body: Record<string, unknown>): Promise<Webhook> {
  const r = await call("POST", "", { URL: closedUrl, Events: ["*"], ...body });
  expect(r.status).toBe(201);
  return r.body as Webhook;
}

/** A port that was free a moment ago (bound, then closed). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  admin = await signInAdmin(h);
  closedUrl = `http://127.0.0.1:${await freePort()}/hook`;
});
afterEach(async () => {
  await h.services.webhookDispatcher.stop();
  await h.close();
});

describe("webhook administration", () => {
  it("names every event type", async () => {
    const r = await call("GET", "/events");
    expect(r.status).toBe(200);
    expect((r.body as WebhookEventTypes).map((e) => e.Type)).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it("refuses bad input with the catalogue's errors and creates nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ URL: "ftp://example.com/x", Events: ["*"] }, "URL must be http or https"],
      [{ URL: "not a url", Events: ["*"] }, "URL must be http or https"],
      [{ URL: "https://example.com/", Events: ["grant.nope"] }, "Unknown event type"],
      [{ URL: "https://example.com/", Events: [] }, "Choose at least one event"],
      [{ URL: "https://example.com/", Events: ["*", "grant.granted"] }, "* must be the only entry"],
    ];
    for (const [body, message] of cases) {
      const r = await call("POST", "", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(r.body)).toContain(message);
    }
    expect(await h.services.db.select().from(webhooks)).toEqual([]);
  });

  it("answers the secret once and keeps it sealed", async () => {
    const created = await create({ Description: "SIEM", Events: ["grant.granted", "grant.granted", "user.signin"] });
    expect(created.Secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.Secret!.slice(6), "base64")).toHaveLength(32);
    expect(created.Events).toEqual(["grant.granted", "user.signin"]);
    expect(created).toMatchObject({ Description: "SIEM", Enabled: true, LastDelivery: null, URL: closedUrl });
    const [row] = await h.services.db.select().from(webhooks);
    expect(row!.secretSealed).not.toContain(created.Secret!.slice(6));
    expect(h.services.secrets.open(secretPurpose(created.ID), row!.secretSealed)).toBe(created.Secret);
    const listed = (await call("GET", "")).body as Webhook[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty("Secret");
    expect((await call("GET", `/${created.ID}`)).body).not.toHaveProperty("Secret");
  });

  it("changes, deletes and audits without writing the URL's path", async () => {
    const created = await create({ URL: "https://hooks.example.com/T0KEN/path", Description: "chat" });
    const patched = await call("PATCH", `/${created.ID}`, { Events: ["grant.error"], Enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ Events: ["grant.error"], Enabled: false, Description: "chat" });
    const put = await call("PUT", `/${created.ID}`, { ID: created.ID, Description: "chat ops" });
    expect((put.body as Webhook).Description).toBe("chat ops");
    expect((await call("PUT", `/${created.ID}`, { ID: seed.aclId })).body).toEqual({ Err: "Mismatching IDs" });
    expect((await call("PATCH", `/${created.ID}`, { URL: "gopher://x" })).status).toBe(400);
    expect((await call("PATCH", `/${seed.aclId}`, { Enabled: true })).status).toBe(404);
    expect((await call("DELETE", `/${created.ID}`)).status).toBe(204);
    expect((await call("DELETE", `/${created.ID}`)).status).toBe(404);
    expect((await call("GET", `/${created.ID}/deliveries`)).status).toBe(404);
    for (const action of ["webhookCreated", "webhookUpdated", "webhookDeleted"]) {
      const entries = await audits(action);
      expect(entries.length, action).toBeGreaterThan(0);
      expect(entries[0]!.adminName).toBe("root");
      expect(entries[0]!.description).toContain("https://hooks.example.com");
      expect(entries[0]!.description).not.toContain("T0KEN");
    }
  });
});

describe("events and deliveries", () => {
  it("queues one delivery per subscribed event raised after the webhook exists, from committed entries only", async () => {
    // Raised before the webhook exists: never sent to it.
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "wrong" });
    const grants = await create({ Events: ["grant.granted", "grant.revoked"] });
    const disabled = await create({ Events: ["*"], Enabled: false });
    const everything = await create({ Events: ["*"] });
    const signIn = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    const cookie = signIn.setCookie.split(";")[0] ?? "";
    h.channel.online.add(seed.agentId);
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie })).status).toBe(200);
    // A refused change writes no audit entry and raises nothing.
    expect((await call("POST", "", { URL: "ftp://x", Events: ["*"] })).status).toBe(400);
    // The request is answered before anything is delivered: nothing is queued until the dispatcher runs.
    expect(await deliveryRows()).toEqual([]);
    await h.services.webhookDispatcher.collect();
    const byHook = async (id: string) =>
      (await deliveryRows()).filter((d) => d.webhookId === id).map((d) => d.eventType);
    expect(await byHook(grants.ID)).toEqual(["grant.granted"]);
    // Its own creation is its first event (the audit entry follows the insert).
    expect(await byHook(everything.ID)).toEqual(["admin.change", "user.signin", "grant.granted"]);
    expect(await byHook(disabled.ID)).toEqual([]);
    const granted = (await deliveryRows()).find((d) => d.webhookId === grants.ID)!;
    expect(JSON.parse(granted.payload)).toMatchObject({
      type: "grant.granted",
      data: { Action: "clickedToGrant", UserName: "alice", ACL: expect.any(String) as unknown },
    });
    // Collecting again inserts nothing twice.
    await h.services.webhookDispatcher.collect();
    expect(await deliveryRows()).toHaveLength(4);
  });

  it("follows the audit log only while a webhook is enabled", async () => {
    const queued = async () => await h.services.db.select().from(auditOutbox);
    expect(await queued()).toEqual([]);
    const hook = await create({ Events: ["user.signin"] });
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    expect((await queued()).length).toBeGreaterThan(0);
    expect((await call("PUT", `/${hook.ID}`, { Enabled: false })).status).toBe(200);
    expect(await queued()).toEqual([]);
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    expect(await queued()).toEqual([]);
    await h.services.webhookDispatcher.collect();
    expect((await deliveryRows()).filter((d) => d.eventType === "user.signin")).toEqual([]);
  });

  it("raises the event of an entry whose transaction commits after a later-numbered one was collected (PostgreSQL)", async (ctx) => {
    if (dialectOf(h.services.db) !== "postgres") ctx.skip(); // SQLite writes one transaction at a time
    const hook = await create({ Events: ["user.signin"] });
    const first = await holdAuditWrite(h.services.db, {
      action: AuditAction.userLoggedIn,
      at: h.clock.now(),
      userName: "numbered first",
    });
    await writeAudit(h.services.db, { action: AuditAction.userLoggedIn, at: h.clock.now(), userName: "second" });
    await h.services.webhookDispatcher.collect();
    await first.commit();
    await h.services.webhookDispatcher.collect();
    const signIns = (await deliveryRows()).filter((d) => d.webhookId === hook.ID && d.eventType === "user.signin");
    expect(signIns.map((d) => (JSON.parse(d.payload) as { data: { UserName: string } }).data.UserName).sort()).toEqual([
      "numbered first",
      "second",
    ]);
  });

  it("keeps the outbox across a restart and retries on the schedule under the same webhook-id", async () => {
    const hook = await create({ Events: ["user.signin"] });
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    await h.services.webhookDispatcher.collect();
    expect(await deliveryRows()).toHaveLength(1);
    // A new dispatcher over the same database (the server restarted) finds the pending delivery.
    const restarted = new WebhookDispatcher({
      db: h.services.db,
      clock: h.clock,
      log: createLogger("silent"),
      secrets: h.services.secrets,
      timeoutMs: 2_000,
    });
    const messageId = (await deliveryRows())[0]!.messageId;
    for (let attempt = 1; attempt <= DEFAULT_RETRY_SCHEDULE_MS.length + 1; attempt++) {
      await restarted.settle();
      const [d] = (await call("GET", `/${hook.ID}/deliveries`)).body as WebhookDelivery[];
      expect(d).toMatchObject({ WebhookID: messageId, Attempts: attempt, LastStatusCode: null });
      expect(d!.LastError).toMatch(/ECONNREFUSED/);
      if (attempt <= DEFAULT_RETRY_SCHEDULE_MS.length) {
        const delay = DEFAULT_RETRY_SCHEDULE_MS[attempt - 1]!;
        expect(d!.Status).toBe("pending");
        expect(Date.parse(d!.NextAttemptAt!) - Date.parse(d!.LastAttemptAt!)).toBe(delay);
        // Not due yet: nothing happens.
        await restarted.settle();
        expect(((await call("GET", `/${hook.ID}/deliveries`)).body as WebhookDelivery[])[0]!.Attempts).toBe(attempt);
        h.clock.advance(delay);
      } else {
        expect(d).toMatchObject({ Status: "failed", NextAttemptAt: null });
      }
    }
    const listed = (await call("GET", "")).body as Webhook[];
    expect(listed[0]!.LastDelivery).toMatchObject({ Status: "failed", Attempts: 6 });
    await restarted.stop();
  });

  it("stops without waiting for a receiver that never answers, and retries that delivery after a restart", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      await create({ URL: `http://127.0.0.1:${port}/hook`, Events: ["user.signin"] });
      await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
      const dispatcher = h.services.webhookDispatcher;
      dispatcher.start();
      await expect.poll(() => sockets.size, { timeout: 5_000 }).toBeGreaterThan(0);
      const started = Date.now();
      await dispatcher.stop();
      expect(Date.now() - started).toBeLessThan(2_000);
      const [row] = await deliveryRows();
      expect(row).toMatchObject({ status: "pending", attempts: 0 });
      // Its lease holds it until the attempt's time is up; then the next start tries it again.
      expect(await dueDeliveryIds(h.services.db, h.clock.now(), 10)).toEqual([]);
      h.clock.advance(DEFAULT_DELIVERY_TIMEOUT_MS + 5_000);
      expect(await dueDeliveryIds(h.services.db, h.clock.now(), 10)).toEqual([row!.id]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("answers a test delivery with its first attempt's result", async () => {
    const hook = await create({ Events: ["grant.error"] });
    const r = await call("POST", `/${hook.ID}/test`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ EventType: "webhook.test", Status: "pending", Attempts: 1, LastStatusCode: null });
    expect((r.body as WebhookDelivery).LastError).toMatch(/ECONNREFUSED/);
    expect((await call("POST", `/${seed.aclId}/test`)).status).toBe(404);
  });
});
