/**
 * The PAN-OS driver against the fake XML API of test/fakes/panos (issue #10 items 10 and 14): User-ID
 * register/unregister on the GroupName tag with the grant's expiry as native timeout, the "already
 * exists" and "does not exist" messages as success, a refused key named without showing it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { PanosDriver } from "../../agent/src/backends/panos/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakePanos } from "../fakes/panos/server.ts";
import type { FakePanos } from "../fakes/panos/server.ts";

const HOUR = 3_600_000;
const key = randomBytes(16).toString("hex");
let pan: FakePanos;
const target: Target = {
  key: "acl-p",
  backendId: "b-p",
  backend: {
    panos: { Hostname: "fw", Insecure: false, ApiKey: "", VSys: "vsys2", DeviceGroup: "", MapUser: false },
  },
  acl: { panos: { EDLName: "", GroupName: "jit-ssh", SerialNumber: "", MapUser: false, URL: "" } },
};
const driver = (apiKey = key) =>
  new PanosDriver({
    http: new NodeHttpClient(),
    hostname: "fw",
    baseUrl: pan.url,
    insecure: false,
    apiKey,
    vsys: "vsys2",
  });

beforeAll(async () => {
  pan = await startFakePanos(key);
});
afterAll(async () => {
  await pan?.stop();
});

describe("PanosDriver on a fake PAN-OS", () => {
  it("registers addresses on the tag with the expiry as timeout, in one uid-message, idempotently", async () => {
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR },
      { ip: "2001:db8::5", expiresAt: now + 90_500 },
    ];
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(pan.requests.filter((r) => r["type"] === "user-id")).toHaveLength(1);
    expect(pan.timeoutOf("203.0.113.5", "jit-ssh", "vsys2")).toBe(3600);
    expect(pan.timeoutOf("2001:db8::5", "jit-ssh", "vsys2")).toBe(91);
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect((await driver().list(target)).sort()).toEqual(["2001:db8::5", "203.0.113.5"]);
  });

  it("lets PAN-OS end access at the expiry by itself", async () => {
    pan.advance(100_000);
    expect(await driver().list(target)).toEqual(["203.0.113.5"]);
  });

  it("unregisters; an address not registered succeeds", async () => {
    expect(await driver().remove(target, ["203.0.113.5", "192.0.2.44"])).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "192.0.2.44", ok: true },
    ]);
    expect(pan.registered("jit-ssh", "vsys2")).toEqual([]);
  });

  it("names a refused key without showing it", async () => {
    const now = Date.now();
    const [out] = await driver("not-the-key").add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now);
    expect(out).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "PAN-OS refused the User-ID update: HTTP 403: the API key was refused",
    });
    expect(JSON.stringify(pan.requests)).not.toContain("not-the-key");
  });
});

describe("PanosDriver, Passive+ (EDL refresh)", () => {
  const edlTarget = (SerialNumber: string): Target => ({
    ...target,
    key: `acl-edl-${SerialNumber}`,
    acl: { panos: { EDLName: "jit_edl", GroupName: "", SerialNumber, MapUser: false, URL: "" } },
  });

  it("records the addresses and refreshes the EDL once per changed batch, through Panorama to the serial", async () => {
    pan.addEdl("jit_edl", ["0123456789"]);
    const t = edlTarget("0123456789");
    const d = driver();
    const now = Date.now();
    const before = pan.requests.length;
    expect(
      await d.add(
        t,
        [
          { ip: "192.0.2.1", expiresAt: now + HOUR },
          { ip: "bad", expiresAt: now + HOUR },
        ],
        now,
      ),
    ).toEqual([
      { ip: "192.0.2.1", ok: true },
      { ip: "bad", ok: false, error: 'invalid IP address "bad"' },
    ]);
    expect(pan.requests.length).toBe(before);
    await d.commit(t);
    await d.commit(t);
    expect(pan.refreshes("jit_edl")).toEqual(["0123456789"]);
    expect(await d.list(t)).toEqual(["192.0.2.1"]);
    await d.remove(t, ["192.0.2.1"]);
    await d.commit(t);
    expect(pan.refreshes("jit_edl")).toEqual(["0123456789", "0123456789"]);
    expect(await d.list(t)).toEqual([]);
  });

  it("fails the commit with the firewall's reason", async () => {
    const t = edlTarget("9999999999");
    const d = driver();
    await d.add(t, [{ ip: "192.0.2.2", expiresAt: Date.now() + HOUR }], Date.now());
    await expect(d.commit(t)).rejects.toThrow(
      "PAN-OS could not refresh the external list jit_edl: device 9999999999 is not managed here",
    );
  });
});
