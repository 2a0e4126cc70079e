/**
 * The FortiOS driver against the fake FortiGate of test/fakes/fortios (issue #10 items 10 and 14):
 * objects and members in the VDOM, IPv6 objects, "already there" and "not there" as success, an
 * object another group still uses, a refused token and a missing group named clearly.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { FortiosDriver } from "../../agent/src/backends/fortios/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakeFortiGate } from "../fakes/fortios/server.ts";
import type { FakeFortiGate } from "../fakes/fortios/server.ts";

const HOUR = 3_600_000;
const token = randomBytes(16).toString("hex");
let fgt: FakeFortiGate;
const target: Target = {
  key: "acl-f",
  backendId: "b-f",
  backend: { fortios: { Url: "http://unused", Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "" } },
  acl: { fortios: { Name: "vpn_users" } },
};
const driver = (bearer = token, vdom = "") =>
  new FortiosDriver({ http: new NodeHttpClient(), url: fgt.url, insecure: false, bearer, prefix: "kk_", vdom });

beforeAll(async () => {
  fgt = await startFakeFortiGate(token);
  fgt.addGroup("vpn_users");
  fgt.addGroup("vpn_users", "root", true);
  fgt.addGroup("other");
});
afterAll(async () => {
  await fgt?.stop();
});

describe("FortiosDriver on a fake FortiGate", () => {
  it("adds an IPv4 and an IPv6 address as prefixed objects in the group, idempotently", async () => {
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR },
      { ip: "2001:db8::5", expiresAt: now + HOUR },
    ];
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(fgt.members("vpn_users")).toEqual(["kk_203.0.113.5"]);
    expect(fgt.members("vpn_users", "root", true)).toEqual(["kk_2001-db8--5"]);
    expect((await driver().list(target)).sort()).toEqual(["2001:db8::5", "203.0.113.5"]);
  });

  it("removes member and object; an absent one succeeds; an object another group uses stays", async () => {
    fgt.putMember("other", "kk_198.51.100.1", "198.51.100.1");
    const now = Date.now();
    await driver().add(target, [{ ip: "198.51.100.1", expiresAt: now + HOUR }], now);
    expect(await driver().remove(target, ["198.51.100.1", "203.0.113.5", "192.0.2.77"])).toEqual([
      { ip: "198.51.100.1", ok: true },
      { ip: "203.0.113.5", ok: true },
      { ip: "192.0.2.77", ok: true },
    ]);
    expect(fgt.members("vpn_users")).toEqual([]);
    expect(fgt.addresses()).toContain("kk_198.51.100.1"); // still used by "other"
    expect(fgt.addresses()).not.toContain("kk_203.0.113.5");
  });

  it("says the token was refused without showing it, and names a missing group with its VDOM", async () => {
    const now = Date.now();
    const [refused] = await driver("wrong-token").add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now);
    expect(refused).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "FortiOS could not create address kk_192.0.2.1: HTTP 401 (error -1): the API token was refused",
    });
    const [missing] = await driver(token, "branch").add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now);
    expect(missing).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "FortiOS has no address group vpn_users in VDOM branch",
    });
    expect(fgt.log.some((l) => l.includes("vdom=branch"))).toBe(true);
  });
});

describe("FortiosDriver on FortiOS below 7.2 (a group cannot be empty)", () => {
  let old: FakeFortiGate;
  beforeAll(async () => {
    old = await startFakeFortiGate(token, { before72: true });
    old.addGroup("vpn_users");
  });
  afterAll(async () => {
    await old?.stop();
  });
  const driverOn = () =>
    new FortiosDriver({
      http: new NodeHttpClient(),
      url: old.url,
      insecure: false,
      bearer: token,
      prefix: "kk_",
      vdom: "",
    });

  it("keeps the built-in none in the group while no grant is in it, and takes it out for the next grant", async () => {
    const now = Date.now();
    expect(await driverOn().add(target, [{ ip: "203.0.113.9", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "203.0.113.9", ok: true },
    ]);
    expect(old.members("vpn_users")).toEqual(["kk_203.0.113.9"]);
    // The last grant leaves: a plain delete would be refused, so none goes in first.
    expect(await driverOn().remove(target, ["203.0.113.9"])).toEqual([{ ip: "203.0.113.9", ok: true }]);
    expect(old.members("vpn_users")).toEqual(["none"]);
    expect(await driverOn().list(target)).toEqual([]);
    await driverOn().add(target, [{ ip: "203.0.113.10", expiresAt: now + HOUR }], now);
    expect(old.members("vpn_users")).toEqual(["kk_203.0.113.10"]);
  });
});
