/**
 * Event webhooks end to end (issue #14 items 4 and 8): a real server (its dispatcher started by startServer, a
 * short retry schedule) delivers events to receivers on loopback that verify EVERY delivery with the
 * `standardwebhooks` package; a receiver that answers 500 first gets retries under the same webhook-id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Webhook, WebhookDelivery } from "@postern/shared";
import { ApiClient, startStack, waitFor } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

/** The retry delays of this test, ms (the server's default is 5 s … 1 h). */
const SCHEDULE = [100, 200, 300];

let stack: Stack;
let all: WebhookReceiver;
let flaky: WebhookReceiver;
let allSecret = "";
let flakySecret = "";

const typesOf = (r: WebhookReceiver) => r.deliveries.map((d) => (JSON.parse(d.body) as { type: string }).type);

beforeAll(async () => {
  stack = await startStack({ webhookDelivery: { retryScheduleMs: SCHEDULE, timeoutMs: 2_000, pollIntervalMs: 25 } });
  all = await startWebhookReceiver(() => allSecret);
  flaky = await startWebhookReceiver(() => flakySecret);
});

afterAll(async () => {
  await stack?.close();
  await all?.stop();
  await flaky?.stop();
});

describe("event webhooks", () => {
  let allHook: Webhook;
  let flakyHook: Webhook;

  it("registers endpoints and answers each secret once", async () => {
    allHook = await stack.admin.ok<Webhook>("POST", "/api/admin/webhooks", {
      URL: all.url,
      Events: ["*"],
      Description: "everything",
    });
    allSecret = allHook.Secret ?? "";
    expect(allSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    flakyHook = await stack.admin.ok<Webhook>("POST", "/api/admin/webhooks", {
      URL: flaky.url,
      Events: ["user.signin"],
      Description: "sign-ins only",
    });
    flakySecret = flakyHook.Secret ?? "";
    const listed = await stack.admin.ok<Webhook[]>("GET", "/api/admin/webhooks");
    expect(listed.map((w) => w.Description)).toEqual(["everything", "sign-ins only"]);
    expect(listed.every((w) => w.Secret === undefined)).toBe(true);
  });

  it("delivers sign-ins, refused sign-ins and admin changes, each one verified", async () => {
    flaky.failNext(2, 500);
    await stack.admin.ok("POST", "/api/admin/users", {
      Name: "Hook User",
      UserName: "hooky",
      AuthType: "local",
      PlainPassword: "hooky-password-1",
      ConfirmPassword: "hooky-password-1",
      AclIds: [],
    });
    const user = new ApiClient(stack.server.url);
    expect(
      (await user.call("POST", "/api/login", { UserName: "hooky", Password: "wrong-password", KioskMode: false }))
        .status,
    ).toBe(401);
    await user.ok("POST", "/api/login", { UserName: "hooky", Password: "hooky-password-1", KioskMode: false });
    const wanted = ["admin.change", "user.signin_failed", "user.signin"];
    expect(await waitFor(() => wanted.every((t) => typesOf(all).includes(t)), 5_000, 20)).toBe(true);
    expect(all.deliveries.length).toBeGreaterThan(0);
    for (const d of all.deliveries) expect(d.verified).toBe(true);
    const signin = all.deliveries.find((d) => d.body.includes('"user.signin"'));
    const body = JSON.parse(signin!.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(body.data).toMatchObject({ Action: "userLoggedIn", UserName: "hooky" });
    expect(Date.parse(body.timestamp)).not.toBeNaN();
    // The webhook's own creation is an admin change it is sent (it names the origin, not the whole URL).
    const created = all.deliveries.map((d) => JSON.parse(d.body) as { data: Record<string, unknown> });
    expect(created.some((m) => m.data["Action"] === "webhookCreated")).toBe(true);
  });

  it("retries a failing receiver with the same webhook-id until it answers 2xx", async () => {
    expect(await waitFor(() => flaky.deliveries.some((d) => d.status === 200), 5_000, 20)).toBe(true);
    expect(flaky.deliveries.map((d) => d.status)).toEqual([500, 500, 200]);
    for (const d of flaky.deliveries) expect(d.verified).toBe(true);
    expect(new Set(flaky.deliveries.map((d) => d.headers["webhook-id"])).size).toBe(1);
    expect(typesOf(flaky)).toEqual(["user.signin", "user.signin", "user.signin"]);
    const deliveries = await stack.admin.ok<WebhookDelivery[]>("GET", `/api/admin/webhooks/${flakyHook.ID}/deliveries`);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      WebhookID: flaky.deliveries[0]!.headers["webhook-id"],
      EventType: "user.signin",
      Status: "delivered",
      Attempts: 3,
      LastStatusCode: 200,
      LastError: "",
      NextAttemptAt: null,
    });
    const [listed] = (await stack.admin.ok<Webhook[]>("GET", "/api/admin/webhooks")).filter(
      (w) => w.ID === flakyHook.ID,
    );
    expect(listed?.LastDelivery?.Status).toBe("delivered");
  });

  it("gives up after the last retry and says why", async () => {
    flaky.failNext(SCHEDULE.length + 1, 503);
    const before = flaky.deliveries.length;
    const user = new ApiClient(stack.server.url);
    await user.ok("POST", "/api/login", { UserName: "hooky", Password: "hooky-password-1", KioskMode: false });
    expect(await waitFor(() => flaky.deliveries.length === before + SCHEDULE.length + 1, 5_000, 20)).toBe(true);
    expect(
      await waitFor(
        async () =>
          (await stack.admin.ok<WebhookDelivery[]>("GET", `/api/admin/webhooks/${flakyHook.ID}/deliveries`))[0]
            ?.Status === "failed",
        5_000,
        20,
      ),
    ).toBe(true);
    const [latest] = await stack.admin.ok<WebhookDelivery[]>("GET", `/api/admin/webhooks/${flakyHook.ID}/deliveries`);
    expect(latest).toMatchObject({ Attempts: SCHEDULE.length + 1, LastStatusCode: 503, LastError: "HTTP 503" });
    expect(flaky.deliveries.slice(before).every((d) => d.verified)).toBe(true);
  });

  it("sends a signed test delivery and answers its result", async () => {
    const result = await stack.admin.ok<WebhookDelivery>("POST", `/api/admin/webhooks/${allHook.ID}/test`);
    expect(result).toMatchObject({ EventType: "webhook.test", Status: "delivered", Attempts: 1, LastStatusCode: 200 });
    const test = all.deliveries.find((d) => d.headers["webhook-id"] === result.WebhookID);
    expect(test?.verified).toBe(true);
  });
});
