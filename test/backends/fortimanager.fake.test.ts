/**
 * The FortiManager driver against the fake JSON-RPC API of test/fakes/fortimanager (issue #10 items
 * 10 and 14), driven through the enforcer so its commit step runs: objects and members in ADOM root,
 * a partial install after each change that reaches the devices, a failed install failing the batch.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { Enforcer } from "../../agent/src/enforcer.ts";
import { startFakeFortiManager } from "../fakes/fortimanager/server.ts";
import type { FakeFortiManager } from "../fakes/fortimanager/server.ts";
import { testDrivers } from "../support/drivers.ts";

const HOUR = 3_600_000;
const key = randomBytes(16).toString("hex");
let fmg: FakeFortiManager;
let enforcer: Enforcer;
let target: Target;
let seq = 0;

beforeAll(async () => {
  fmg = await startFakeFortiManager(key);
  fmg.addGroup("jit_grp");
  fmg.addGroup("jit_grp", true);
  const { drivers, seal } = testDrivers();
  target = {
    key: "acl-fmg",
    backendId: "b-fmg",
    backend: { fortimanager: { Hostname: fmg.url, Insecure: false, ApiKey: "" } },
    acl: { fortimanager: { Name: "jit_grp" } },
    secrets: { ApiKey: seal(key) },
  };
  enforcer = new Enforcer({ backends: drivers, driftCheckSeconds: 0 });
  await enforcer.start();
});
afterAll(async () => {
  await enforcer?.stop();
  await fmg?.stop();
});

describe("FortimanagerDriver on a fake FortiManager", () => {
  it("adds objects as group members and installs the group to the devices after the batch", async () => {
    const expiresAt = Date.now() + HOUR;
    const ack = await enforcer.apply({
      seq: ++seq,
      ops: [
        { op: "add", target, ip: "203.0.113.5", expiresAt },
        { op: "add", target, ip: "2001:db8::5", expiresAt },
      ],
    });
    expect(ack.results.every((r) => r.ok)).toBe(true);
    expect(fmg.members("jit_grp")).toEqual(["kk_203.0.113.5"]);
    expect(fmg.installed("jit_grp")).toEqual(["kk_203.0.113.5"]);
    expect(fmg.installs()).toBe(1); // one per batch of a target
  });

  it("a failed install fails the batch with its reason", async () => {
    fmg.failInstalls(true);
    const ack = await enforcer.apply({
      seq: ++seq,
      ops: [{ op: "add", target, ip: "198.51.100.7", expiresAt: Date.now() + HOUR }],
    });
    expect(ack.results).toEqual([
      {
        key: "acl-fmg",
        ip: "198.51.100.7",
        op: "add",
        ok: false,
        error: expect.stringMatching(/^commit failed: FortiManager install task \d+ of jit_grp failed$/),
      },
    ]);
    fmg.failInstalls(false);
  });

  it("removes members and objects, and installs again", async () => {
    const before = fmg.installs();
    const ack = await enforcer.apply({
      seq: ++seq,
      ops: [
        { op: "del", target, ip: "203.0.113.5" },
        { op: "del", target, ip: "198.51.100.7" },
      ],
    });
    expect(ack.results.every((r) => r.ok)).toBe(true);
    expect(fmg.members("jit_grp")).toEqual([]);
    expect(fmg.installed("jit_grp")).toEqual([]);
    expect(fmg.installs()).toBe(before + 1);
  });
});
