/**
 * The Firepower (FMC) driver against the fake FMC of test/fakes/firepower (issue #10 items 10 and 14):
 * one read and one PUT of the whole group per batch, a placeholder literal where the group would be
 * empty, the admin's object references kept, a deploy of the deployable devices after a change, the
 * token refreshed by age and regenerated after three refreshes or when refused, 429 retried, and a
 * refused password named without showing it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import {
  FIREPOWER_PLACEHOLDER,
  FIREPOWER_TOKEN_REFRESH_MS,
  FirepowerDriver,
} from "../../agent/src/backends/firepower/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakeFmc } from "../fakes/firepower/server.ts";
import type { FakeFmc } from "../fakes/firepower/server.ts";

const HOUR = 3_600_000;
const password = randomBytes(16).toString("hex");
let fmc: FakeFmc;
const targetOf = (id: string): Target => ({
  key: `acl-${id}`,
  backendId: "b-fmc",
  backend: { firepower: { Hostname: fmc.url, Insecure: false, Username: "api", Password: "" } },
  acl: { firepower: { GroupUUID: id } },
});
const driver = (extra: { password?: string; now?: () => number } = {}) =>
  new FirepowerDriver({
    http: new NodeHttpClient(),
    hostname: fmc.url,
    insecure: false,
    username: "api",
    password: extra.password ?? password,
    deployWaitMs: 300,
    pollMs: 50,
    retryDelayMs: 10,
    ...(extra.now ? { now: extra.now } : {}),
  });

beforeAll(async () => {
  fmc = await startFakeFmc("api", password);
});
afterAll(async () => {
  await fmc?.stop();
});

describe("FirepowerDriver on a fake FMC", () => {
  it("adds a batch with one PUT, drops the placeholder, and again changes nothing", async () => {
    const id = fmc.addGroup("jit");
    const target = targetOf(id);
    const d = driver();
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR },
      { ip: "2001:db8::5", expiresAt: now + HOUR },
      { ip: "192.0.2.9", expiresAt: now - 1 },
    ];
    const before = fmc.count("put");
    expect(await d.add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
      { ip: "192.0.2.9", ok: true },
    ]);
    expect(fmc.count("put") - before).toBe(1);
    expect(fmc.literals(id)).toEqual([
      { type: "Host", value: "203.0.113.5" },
      { type: "Host", value: "2001:db8::5" },
    ]);
    expect(await d.add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
      { ip: "192.0.2.9", ok: true },
    ]);
    expect(fmc.count("put") - before).toBe(1);
    expect((await d.list(target)).sort()).toEqual(["2001:db8::5", "203.0.113.5"]);
  });

  it("deploys after a change, and only then", async () => {
    const id = fmc.addGroup("jit_deploy");
    const target = targetOf(id);
    const d = driver();
    const now = Date.now();
    await d.add(target, [{ ip: "198.51.100.7", expiresAt: now + HOUR }], now);
    expect(fmc.deployed(id)).toEqual([FIREPOWER_PLACEHOLDER]);
    const deploys = fmc.count("deploy");
    await d.commit(target);
    expect(fmc.count("deploy") - deploys).toBe(1);
    expect(fmc.deployed(id)).toEqual(["198.51.100.7"]);
    await d.add(target, [{ ip: "198.51.100.7", expiresAt: now + HOUR }], now);
    await d.commit(target);
    expect(fmc.count("deploy") - deploys).toBe(1);
  });

  it("keeps the placeholder when the last address goes; an absent address succeeds", async () => {
    const id = fmc.addGroup("jit_empty");
    const target = targetOf(id);
    const d = driver();
    const now = Date.now();
    await d.add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now);
    const before = fmc.count("put");
    expect(await d.remove(target, ["192.0.2.1", "192.0.2.2", "not-an-ip"])).toEqual([
      { ip: "192.0.2.1", ok: true },
      { ip: "192.0.2.2", ok: true },
      { ip: "not-an-ip", ok: false, error: 'invalid IP address "not-an-ip"' },
    ]);
    expect(fmc.count("put") - before).toBe(1);
    expect(fmc.literals(id)).toEqual([{ type: "Host", value: FIREPOWER_PLACEHOLDER }]);
    expect(await d.list(target)).toEqual([]);
    expect(await d.remove(target, ["192.0.2.1"])).toEqual([{ ip: "192.0.2.1", ok: true }]);
    expect(fmc.count("put") - before).toBe(1);
  });

  it("leaves the admin's object references and Network literals alone, and needs no placeholder beside them", async () => {
    const ref = { type: "Network", id: "00000000-0000-4000-8000-0000000000aa", name: "office" };
    const id = fmc.addGroup("jit_mixed", { objects: [ref], literals: [{ type: "Network", value: "10.0.0.0/8" }] });
    const target = targetOf(id);
    const d = driver();
    const now = Date.now();
    await d.add(target, [{ ip: "192.0.2.3", expiresAt: now + HOUR }], now);
    expect(await d.list(target)).toEqual(["192.0.2.3"]);
    await d.remove(target, ["192.0.2.3"]);
    expect(fmc.literals(id)).toEqual([{ type: "Network", value: "10.0.0.0/8" }]);
    const only = fmc.addGroup("jit_objects", { objects: [ref], literals: [] });
    await d.add(targetOf(only), [{ ip: "192.0.2.4", expiresAt: now + HOUR }], now);
    await d.remove(targetOf(only), ["192.0.2.4"]);
    expect(fmc.literals(only)).toEqual([]);
  });

  it("refreshes an aged token three times, then generates a new one; a refused token is renewed once", async () => {
    const id = fmc.addGroup("jit_token");
    const target = targetOf(id);
    let t = Date.now();
    const d = driver({ now: () => t });
    const gen = fmc.count("generatetoken");
    const ref = fmc.count("refreshtoken");
    await d.list(target);
    await d.list(target);
    expect([fmc.count("generatetoken") - gen, fmc.count("refreshtoken") - ref]).toEqual([1, 0]);
    for (let i = 1; i <= 3; i++) {
      t += FIREPOWER_TOKEN_REFRESH_MS;
      await d.list(target);
      expect([fmc.count("generatetoken") - gen, fmc.count("refreshtoken") - ref]).toEqual([1, i]);
    }
    t += FIREPOWER_TOKEN_REFRESH_MS;
    await d.list(target);
    expect([fmc.count("generatetoken") - gen, fmc.count("refreshtoken") - ref]).toEqual([2, 3]);
    fmc.expireTokens();
    expect(await d.list(target)).toEqual([]);
    expect(fmc.count("generatetoken") - gen).toBe(3);
  });

  it("retries calls answered 429", async () => {
    const id = fmc.addGroup("jit_429");
    const d = driver();
    await d.list(targetOf(id));
    fmc.throttle(2);
    const now = Date.now();
    expect(await d.add(targetOf(id), [{ ip: "192.0.2.5", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "192.0.2.5", ok: true },
    ]);
    fmc.throttle(3);
    await expect(d.list(targetOf(id))).rejects.toThrow("Firepower could not read network group");
  });

  it("names a refused password (without showing it) and a missing group", async () => {
    const id = fmc.addGroup("jit_err");
    const now = Date.now();
    const wrong = "wrong-" + randomBytes(4).toString("hex");
    const [o] = await driver({ password: wrong }).add(targetOf(id), [{ ip: "192.0.2.6", expiresAt: now + HOUR }], now);
    expect(o).toEqual({
      ip: "192.0.2.6",
      ok: false,
      error: "Firepower could not sign in: HTTP 401 (Unauthorized): the user name or password was refused",
    });
    expect(o!.error).not.toContain(wrong);
    const missing = "6d1bd9a2-1111-4111-8111-000000000000";
    await expect(driver().list(targetOf(missing))).rejects.toThrow(`Firepower has no network group ${missing}`);
  });
});
