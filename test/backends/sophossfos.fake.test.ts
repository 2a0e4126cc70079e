/**
 * The Sophos Firewall (SFOS) driver against the fake XML API of test/fakes/sophossfos (issue #10
 * items 10 and 14): one read and one update of the group's HostList per family and batch, "already
 * exists" (502) as success, IPv6 hosts in the GroupNameV6 group, the admin's hosts kept, revoked
 * hosts removed, and 532, 534 and a refused login named without showing the password.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { SophosSfosDriver } from "../../agent/src/backends/sophossfos/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakeSophosSfos } from "../fakes/sophossfos/server.ts";
import type { FakeSophosSfos } from "../fakes/sophossfos/server.ts";

const HOUR = 3_600_000;
const password = `p<&${randomBytes(8).toString("hex")}`;
let fw: FakeSophosSfos;
const targetOf = (GroupName: string, GroupNameV6 = ""): Target => ({
  key: `acl-${GroupName}`,
  backendId: "b-sfos",
  backend: { sophossfos: { Hostname: fw.url, Insecure: false, Username: "api", Password: "" } },
  acl: { sophossfos: { GroupName, GroupNameV6 } },
});
const driver = (pw = password) =>
  new SophosSfosDriver({
    http: new NodeHttpClient(),
    hostname: fw.url,
    insecure: false,
    username: "api",
    password: pw,
  });

beforeAll(async () => {
  fw = await startFakeSophosSfos("api", password);
});
afterAll(async () => {
  await fw?.stop();
});

describe("SophosSfosDriver on a fake SFOS", () => {
  it("adds a batch with one update per family, and again changes nothing", async () => {
    fw.addGroup("jit4");
    fw.addGroup("jit6", "IPv6");
    fw.addHost("office", "10.1.2.3");
    const target = targetOf("jit4", "jit6");
    fw.put("jit4", "192.0.2.200");
    fw.drop("jit4", "192.0.2.200");
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR },
      { ip: "192.0.2.200", expiresAt: now + HOUR },
      { ip: "2001:db8::5", expiresAt: now + HOUR },
      { ip: "192.0.2.9", expiresAt: now - 1 },
    ];
    const before = fw.updates();
    const ok = entries.map((e) => ({ ip: e.ip, ok: true }));
    expect(await driver().add(target, entries, now)).toEqual(ok);
    expect(fw.updates() - before).toBe(2);
    expect(fw.hostList("jit4")).toEqual(["kk_203.0.113.5", "kk_192.0.2.200"]);
    expect(fw.hostList("jit6")).toEqual(["kk_2001-db8--5"]);
    expect(await driver().add(target, entries, now)).toEqual(ok);
    expect(fw.updates() - before).toBe(2);
    expect((await driver().list(target)).sort()).toEqual(["192.0.2.200", "2001:db8::5", "203.0.113.5"]);
  });

  it("removes from the groups and deletes the hosts; the admin's hosts stay; an absent address succeeds", async () => {
    fw.addGroup("mixed", "IPv4", ["office"]);
    const target = targetOf("mixed", "jit6");
    const now = Date.now();
    await driver().add(target, [{ ip: "198.51.100.1", expiresAt: now + HOUR }], now);
    fw.put("mixed", "198.51.100.2");
    expect(fw.hostList("mixed")).toEqual(["office", "kk_198.51.100.1", "kk_198.51.100.2"]);
    expect((await driver().list(target)).sort()).toEqual(["198.51.100.1", "198.51.100.2", "2001:db8::5"]);
    expect(await driver().remove(target, ["198.51.100.1", "2001:db8::5", "192.0.2.77", "x"])).toEqual([
      { ip: "198.51.100.1", ok: true },
      { ip: "2001:db8::5", ok: true },
      { ip: "192.0.2.77", ok: true },
      { ip: "x", ok: false, error: 'invalid IP address "x"' },
    ]);
    expect(fw.hostList("mixed")).toEqual(["office", "kk_198.51.100.2"]);
    expect(fw.hostList("jit6")).toEqual([]);
    expect(fw.hostNames()).not.toContain("kk_198.51.100.1");
    expect(fw.hostNames()).not.toContain("kk_2001-db8--5");
    expect(fw.hostNames()).toContain("office");
  });

  it("refuses an address of a family the ACL has no group for", async () => {
    fw.addGroup("only4");
    const now = Date.now();
    expect(await driver().add(targetOf("only4"), [{ ip: "2001:db8::9", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "2001:db8::9", ok: false, error: "the ACL has no GroupNameV6 for IPv6 addresses" },
    ]);
  });

  it("names 532, 534, a refused login (without the password) and a missing group", async () => {
    const now = Date.now();
    const one = [{ ip: "192.0.2.1", expiresAt: now + HOUR }];
    const wrong = `wrong-${randomBytes(4).toString("hex")}`;
    const [refused] = await driver(wrong).add(targetOf("jit4"), one, now);
    expect(refused).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "Sophos Firewall refused the login: the user name or password was refused",
    });
    fw.setApiAccess(false);
    await expect(driver().list(targetOf("jit4"))).rejects.toThrow("API access is not enabled (532)");
    fw.setApiAccess(true);
    fw.setAllowed(false);
    await expect(driver().list(targetOf("jit4"))).rejects.toThrow("not allowed to use the API (534)");
    fw.setAllowed(true);
    await expect(driver().list(targetOf("nope"))).rejects.toThrow("Sophos Firewall has no IP host group nope");
  });
});
