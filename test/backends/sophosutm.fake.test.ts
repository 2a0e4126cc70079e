/**
 * The Sophos UTM driver against the fake REST API of test/fakes/sophosutm (issue #10 items 10 and 14):
 * one read and one write of the group's member list per batch, hosts found before they are created,
 * revoked hosts deleted with the error acknowledgement, a refused key named without showing it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { SophosUtmDriver } from "../../agent/src/backends/sophosutm/driver.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { startFakeSophosUtm } from "../fakes/sophosutm/server.ts";
import type { FakeSophosUtm } from "../fakes/sophosutm/server.ts";

const HOUR = 3_600_000;
const key = randomBytes(16).toString("hex");
let utm: FakeSophosUtm;
let target: Target;
let groupRef = "";
const driver = (apiKey = key) =>
  new SophosUtmDriver({ http: new NodeHttpClient(), hostname: utm.url, insecure: false, apiKey });

beforeAll(async () => {
  utm = await startFakeSophosUtm(key);
  const ref = utm.addGroup("jit");
  groupRef = ref;
  target = {
    key: "acl-u",
    backendId: "b-u",
    backend: { sophosutm: { Hostname: utm.url, Insecure: false, ApiKey: "" } },
    acl: { sophosutm: { GroupReference: ref } },
  };
});
afterAll(async () => {
  await utm?.stop();
});

describe("SophosUtmDriver on a fake UTM", () => {
  it("adds a batch with one PATCH of the member list, and again changes nothing", async () => {
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR },
      { ip: "2001:db8::5", expiresAt: now + HOUR },
    ];
    const before = utm.patches();
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(utm.patches() - before).toBe(1);
    expect(await driver().add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(utm.patches() - before).toBe(1);
    expect(utm.hostNames().sort()).toEqual(["kk_2001:db8::5", "kk_203.0.113.5"]);
    expect((await driver().list(target)).sort()).toEqual(["2001:db8::5", "203.0.113.5"]);
  });

  it("removes from the group and deletes the hosts; an absent address succeeds", async () => {
    expect(await driver().remove(target, ["203.0.113.5", "2001:db8::5", "192.0.2.9"])).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
      { ip: "192.0.2.9", ok: true },
    ]);
    expect(utm.members(groupRef)).toEqual([]);
    expect(utm.hostNames()).toEqual([]);
  });

  it("names a refused key and a missing group", async () => {
    const now = Date.now();
    expect(await driver("wrong").add(target, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now)).toEqual([
      {
        ip: "192.0.2.1",
        ok: false,
        error: "Sophos UTM could not list hosts: HTTP 401 (Authentication failed): the API key was refused",
      },
    ]);
    const other: Target = { ...target, acl: { sophosutm: { GroupReference: "REF_Nope" } } };
    await expect(driver().list(other)).rejects.toThrow("Sophos UTM has no network group REF_Nope");
  });
});
