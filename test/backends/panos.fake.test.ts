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
