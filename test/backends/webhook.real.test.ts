/**
 * The webhook driver against a real receiver on loopback (issue #10 items 7 and 13): every delivery's
 * Standard Webhooks signature is verified by the `standardwebhooks` package, retries keep the same
 * `webhook-id`, USERNAME/PASSWORD become basic auth, and a refusal that retrying cannot fix fails at once.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { WebhookDriver } from "../../agent/src/backends/webhook/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { secretOpener, sealForAgent } from "../../agent/src/secrets.ts";
import { generateAgentKeys } from "../../agent/src/enrol.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

const HOUR = 3_600_000;
const secret = `whsec_${randomBytes(32).toString("base64")}`;
const keys = generateAgentKeys();
let receiver: WebhookReceiver;

function target(vars: Record<string, string>, sensitive: Record<string, string> = {}): Target {
  const env: Record<string, { Value: string; Encrypted: boolean }> = {};
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) env[k] = { Value: v, Encrypted: false };
  for (const [k, v] of Object.entries(sensitive)) {
    env[k] = { Value: "", Encrypted: true };
    secrets[`env:${k}`] = sealForAgent(keys.boxPublicKey, v);
  }
  return {
    key: "acl-w",
    backendId: "b-w",
    backend: {
      script: {
        Command: receiver.url,
        EnvVars: Object.keys(env).map((Name) => ({ Name, Sensitive: env[Name]!.Encrypted })),
      },
    },
    acl: { script: { Name: "partner-api", EnvVars: env } },
    secrets,
  };
}

function driver(): WebhookDriver {
  return new WebhookDriver({
    http: new NodeHttpClient(),
    url: receiver.url,
    openSecret: secretOpener(keys.boxPublicKey, keys.boxSecretKey),
    backoffMs: 20,
    attempts: 3,
  });
}

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret);
});
afterAll(async () => {
  await receiver?.stop();
});

describe("webhook driver with a real receiver", () => {
  it("posts one signed JSON change per address, verified by standardwebhooks, with basic auth", async () => {
    const t = target({ USERNAME: "knoc" }, { WEBHOOK_SECRET: secret, PASSWORD: "pa:ss" });
    const now = Date.now();
    receiver.deliveries.length = 0;
    expect(await driver().add(t, [{ ip: "203.0.113.5", expiresAt: now + HOUR, user: "alice" }], now)).toEqual([
      { ip: "203.0.113.5", ok: true },
    ]);
    expect(receiver.granted.has("203.0.113.5")).toBe(true);
    const [d] = receiver.deliveries;
    expect(d?.verified).toBe(true);
    expect(d?.headers["authorization"]).toBe(`Basic ${Buffer.from("knoc:pa:ss").toString("base64")}`);
    expect(JSON.parse(d!.body)).toMatchObject({
      type: "access.granted",
      data: {
        action: "add",
        acl: "partner-api",
        user: "alice",
        ip: "203.0.113.5",
        cidr: "203.0.113.5/32",
        expires_at: new Date(now + HOUR).toISOString(),
      },
    });
    expect(d?.body).not.toContain(secret);
    expect(await driver().remove(t, ["203.0.113.5"])).toEqual([{ ip: "203.0.113.5", ok: true }]);
    expect(receiver.granted.has("203.0.113.5")).toBe(false);
  });

  it("retries a 5xx with backoff under the same webhook-id", async () => {
    const t = target({}, { WEBHOOK_SECRET: secret });
    receiver.deliveries.length = 0;
    receiver.failNext(2, 503);
    const now = Date.now();
    expect(await driver().add(t, [{ ip: "198.51.100.7", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "198.51.100.7", ok: true },
    ]);
    expect(receiver.deliveries.map((d) => d.status)).toEqual([503, 503, 200]);
    expect(new Set(receiver.deliveries.map((d) => d.headers["webhook-id"])).size).toBe(1);
    expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
  });

  it("fails at once on a 4xx and after the last attempt on 5xx, saying what the receiver answered", async () => {
    const t = target({}, { WEBHOOK_SECRET: secret });
    receiver.deliveries.length = 0;
    receiver.failNext(1, 403);
    const now = Date.now();
    expect(await driver().add(t, [{ ip: "198.51.100.8", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "198.51.100.8", ok: false, error: "webhook answered HTTP 403: no" },
    ]);
    expect(receiver.deliveries).toHaveLength(1);
    receiver.failNext(5, 500);
    const [out] = await driver().add(t, [{ ip: "198.51.100.9", expiresAt: now + HOUR }], now);
    expect(out).toEqual({ ip: "198.51.100.9", ok: false, error: "webhook answered HTTP 500: no (after 3 attempts)" });
    receiver.failNext(0, 500);
  });

  it("a wrong secret is refused by the receiver; a missing one is refused by the agent", async () => {
    const wrong = `whsec_${randomBytes(32).toString("base64")}`;
    const now = Date.now();
    const [bad] = await driver().add(
      target({}, { WEBHOOK_SECRET: wrong }),
      [{ ip: "192.0.2.1", expiresAt: now + HOUR }],
      now,
    );
    expect(bad).toEqual({ ip: "192.0.2.1", ok: false, error: "webhook answered HTTP 401: no" });
    const [none] = await driver().add(target({}), [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now);
    expect(none).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "the ACL has no WEBHOOK_SECRET to sign the webhook with",
    });
  });
});
