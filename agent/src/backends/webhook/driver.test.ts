import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import type { Target } from "@postern/shared";
import { FakeHttpClient } from "../../http/fake-client.ts";
import { HttpTransportError } from "../../http/client.ts";
import { WebhookDriver } from "./driver.ts";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const target: Target = {
  key: "k",
  backendId: "b",
  backend: { script: { Command: "https://hooks.example/knoc", EnvVars: [] } },
  acl: { script: { Name: "acl1", EnvVars: { WEBHOOK_SECRET: { Value: secret, Encrypted: false } } } },
};

function driver(http: FakeHttpClient): WebhookDriver {
  return new WebhookDriver({
    http,
    url: "https://hooks.example/knoc",
    openSecret: () => "",
    backoffMs: 1,
    attempts: 3,
  });
}

describe("WebhookDriver (HTTP faked)", () => {
  it("retries a transport error under the same id, each attempt signed so that standardwebhooks verifies it", async () => {
    let calls = 0;
    const http = new FakeHttpClient().on("POST https://hooks.example/knoc", () =>
      ++calls === 1 ? new HttpTransportError("connect ECONNREFUSED", "ECONNREFUSED") : { status: 204 },
    );
    expect(await driver(http).add(target, [{ ip: "192.0.2.1", expiresAt: Date.now() + 60_000 }], Date.now())).toEqual([
      { ip: "192.0.2.1", ok: true },
    ]);
    expect(http.requests).toHaveLength(2);
    const ids = http.requests.map((r) => r.headers?.["webhook-id"]);
    expect(ids[0]).toBe(ids[1]);
    for (const r of http.requests) expect(() => new Webhook(secret).verify(r.body!, { ...r.headers })).not.toThrow();
  });

  it("reports the transport error after the last attempt, and refuses an invalid address without a call", async () => {
    const http = new FakeHttpClient().on("POST", new HttpTransportError("socket hang up"));
    const now = Date.now();
    expect(await driver(http).remove(target, ["192.0.2.1", "nope"])).toEqual([
      { ip: "192.0.2.1", ok: false, error: "webhook not reached: socket hang up (after 3 attempts)" },
      { ip: "nope", ok: false, error: 'invalid IP address "nope"' },
    ]);
    expect(http.requests).toHaveLength(3);
    expect(await driver(http).add(target, [{ ip: "192.0.2.1", expiresAt: now - 1 }], now)).toEqual([
      { ip: "192.0.2.1", ok: true },
    ]);
    expect(http.requests).toHaveLength(3); // expired: nothing posted
  });
});
