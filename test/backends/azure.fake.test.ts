/**
 * The Azure NSG driver through the real Azure SDK (`@azure/arm-network`, `@azure/identity`'s
 * `ClientSecretCredential`) against the local HTTPS fake of test/fakes/azure (issue #10 items 10, 13,
 * 14). The SDK reaches the fake through the agent's HTTP boundary, which trusts the fake's certificate
 * by the agent's HTTP option `ca` (no NODE_EXTRA_CA_CERTS, no child process). Covers: the token, the
 * subscription found by its NSG, one rule per address with the lowest free priority of the band, a
 * re-grant finding its rule, a lost priority race retried, revoke by name (a missing rule is fine), the
 * admin's rules untouched, Outbound rules, NoCache, and a refused secret named without showing it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { AZURE_PRIORITY_BAND, AzureDriver, azureRuleName } from "../../agent/src/backends/azure/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakeAzure } from "../fakes/azure/server.ts";
import type { FakeAzure } from "../fakes/azure/server.ts";

const HOUR = 3_600_000;
const tenant = randomUUID();
const clientId = randomUUID();
const secret = randomBytes(16).toString("hex");
let az: FakeAzure;
const targetOf = (nsg: string, direction: "Inbound" | "Outbound" = "Inbound", port = 443): Target => ({
  key: `acl-${nsg}-${direction}`,
  backendId: "b-az",
  backend: { azure: { ClientId: "", ClientSecret: "", TenantId: "", NoCache: false } },
  acl: { azure: { NsgDirection: direction, NsgName: nsg, NsgPort: port, ResourceGroup: "rg-jit" } },
});
const driver = (extra: { secret?: string; noCache?: boolean } = {}) =>
  new AzureDriver({
    http: new NodeHttpClient({ ca: az.ca, defaultTimeoutMs: 10_000 }),
    tenantId: tenant,
    clientId,
    clientSecret: extra.secret ?? secret,
    noCache: extra.noCache ?? false,
    endpoint: az.url,
    authorityHost: az.url,
    pollIntervalMs: 10,
  });

beforeAll(async () => {
  az = await startFakeAzure(tenant, clientId, secret);
});
afterAll(async () => {
  await az?.stop();
});

describe("AzureDriver through the Azure SDK on a fake ARM", () => {
  it("creates one rule per address at the lowest free priority, and a re-grant finds its rule", async () => {
    az.addNsg("rg-jit", "nsg1");
    az.putRule("rg-jit", "nsg1", { name: "admin-ssh", priority: AZURE_PRIORITY_BAND.min });
    const target = targetOf("nsg1");
    const d = driver();
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR, user: "alice" },
      { ip: "2001:db8::", expiresAt: now + HOUR },
      { ip: "192.0.2.9", expiresAt: now - 1 },
    ];
    const ok = entries.map((e) => ({ ip: e.ip, ok: true }));
    expect(await d.add(target, entries, now)).toEqual(ok);
    const rules = az.rules("rg-jit", "nsg1").filter((r) => r.name.startsWith("postern-"));
    expect(
      rules.map((r) => [r.name, r.priority, r.sourceAddressPrefix, r.destinationPortRange, r.description]),
    ).toEqual([
      ["postern-in-443-203.0.113.5", 1001, "203.0.113.5/32", "443", "postern alice"],
      ["postern-in-443-2001-db8--_", 1002, "2001:db8::/128", "443", "postern"],
    ]);
    const tokens = az.tokens();
    expect(await d.add(target, entries, now)).toEqual(ok);
    expect(az.rules("rg-jit", "nsg1")).toHaveLength(3);
    expect(az.tokens()).toBe(tokens);
    expect((await d.list(target)).sort()).toEqual(["2001:db8::", "203.0.113.5"]);
  });

  it("deletes by name, a missing rule succeeds, and the admin's rule stays", async () => {
    const target = targetOf("nsg1");
    expect(await driver().remove(target, ["203.0.113.5", "2001:db8::", "198.51.100.1", "nope"])).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::", ok: true },
      { ip: "198.51.100.1", ok: true },
      { ip: "nope", ok: false, error: 'invalid IP address "nope"' },
    ]);
    expect(az.rules("rg-jit", "nsg1").map((r) => r.name)).toEqual(["admin-ssh"]);
  });

  it("retries with another priority after losing a race (SecurityRuleConflict)", async () => {
    az.addNsg("rg-jit", "nsg2");
    const target = targetOf("nsg2");
    az.raceNextPut();
    const now = Date.now();
    expect(await driver().add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "192.0.2.1", ok: true },
    ]);
    const byName = new Map(az.rules("rg-jit", "nsg2").map((r) => [r.name, r.priority]));
    expect(byName.get("admin-race")).toBe(AZURE_PRIORITY_BAND.min);
    expect(byName.get(azureRuleName("Inbound", 443, "192.0.2.1"))).toBe(AZURE_PRIORITY_BAND.min + 1);
  });

  it("puts the address in the destination of Outbound rules, with priorities of their own", async () => {
    az.addNsg("rg-jit", "nsg3");
    const now = Date.now();
    await driver().add(targetOf("nsg3", "Inbound", 22), [{ ip: "192.0.2.2", expiresAt: now + HOUR }], now);
    await driver().add(targetOf("nsg3", "Outbound", 22), [{ ip: "192.0.2.2", expiresAt: now + HOUR }], now);
    const out = az.rules("rg-jit", "nsg3").find((r) => r.direction === "Outbound")!;
    expect([out.name, out.priority, out.sourceAddressPrefix, out.destinationAddressPrefix]).toEqual([
      "postern-out-22-192.0.2.2",
      AZURE_PRIORITY_BAND.min,
      "*",
      "192.0.2.2/32",
    ]);
    expect(await driver().list(targetOf("nsg3", "Outbound", 22))).toEqual(["192.0.2.2"]);
    expect(await driver().list(targetOf("nsg3", "Outbound", 443))).toEqual([]);
  });

  it("gets a new token per batch with NoCache", async () => {
    const d = driver({ noCache: true });
    const before = az.tokens();
    await d.list(targetOf("nsg1"));
    await d.list(targetOf("nsg1"));
    expect(az.tokens() - before).toBe(2);
  });

  it("names a refused secret (without showing it) and a missing NSG", async () => {
    const wrong = `wrong-${randomBytes(6).toString("hex")}`;
    const now = Date.now();
    const [o] = await driver({ secret: wrong }).add(
      targetOf("nsg1"),
      [{ ip: "192.0.2.3", expiresAt: now + HOUR }],
      now,
    );
    expect(o!.ok).toBe(false);
    expect(o!.error).toContain("AADSTS7000215");
    expect(o!.error).not.toContain(wrong);
    await expect(driver().list(targetOf("nsg-missing"))).rejects.toThrow(
      /none of the 2 subscription\(s\) this service principal sees holds NSG nsg-missing in resource group rg-jit/,
    );
  });
});
