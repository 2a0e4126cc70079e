import { describe, expect, it } from "vitest";
import type { Entry, Target } from "@postern/shared";
import type { EntryOutcome } from "./backends/backend.ts";
import type { Driver, DriverResolver } from "./backends/driver.ts";
import { GroupQueues } from "./backends/queues.ts";
import { Enforcer } from "./enforcer.ts";
import { ManualClock } from "./testing/manual-clock.ts";

/** A driver whose target is faked in memory (the enforcer is under test); `gate` holds its calls. */
class MemoryDriver implements Driver {
  readonly type: string;
  readonly entries = new Set<string>();
  readonly calls: string[] = [];
  gate: Promise<void> | null = null;
  driftIntervalMs?: number;
  commit?: (target: Target) => Promise<void>;
  replace?: (target: Target, entries: readonly Entry[], now: number) => Promise<EntryOutcome[]>;
  constructor(type: string) {
    this.type = type;
  }
  async add(_t: Target, entries: readonly Entry[]): Promise<EntryOutcome[]> {
    this.calls.push(`add ${entries.map((e) => e.ip).join(",")}`);
    if (this.gate) await this.gate;
    for (const e of entries) this.entries.add(e.ip);
    return entries.map((e) => ({ ip: e.ip, ok: true }));
  }
  async remove(_t: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    this.calls.push(`del ${ips.join(",")}`);
    if (this.gate) await this.gate;
    for (const ip of ips) this.entries.delete(ip);
    return ips.map((ip) => ({ ip, ok: true }));
  }
  async list(): Promise<string[]> {
    this.calls.push("list");
    return [...this.entries];
  }
}

const ipsetTarget: Target = {
  key: "a",
  backendId: "b1",
  backend: { ipset: {} },
  acl: { ipset: { V4SetName: "s", V6SetName: "" } },
};
const nftTarget: Target = {
  key: "n",
  backendId: "b2",
  backend: { nftables: {} },
  acl: { nftables: { Table: "inet postern", V4SetName: "s", V6SetName: "" } },
};

function resolver(byType: Record<string, Driver>): DriverResolver {
  return { driverFor: (t) => byType[Object.keys(t.backend)[0]!] ?? "none" };
}

async function started(byType: Record<string, Driver>, clock = new ManualClock()): Promise<Enforcer> {
  const e = new Enforcer({ backends: resolver(byType), clock, driftCheckSeconds: 0 });
  await e.start();
  return e;
}

describe("enforcer with drivers", () => {
  it("a slow driver never delays another driver's grant: queues are per driver", async () => {
    const slow = new MemoryDriver("nftables");
    const fast = new MemoryDriver("ipset");
    let release!: () => void;
    slow.gate = new Promise((r) => (release = r));
    const clock = new ManualClock();
    const enforcer = await started({ nftables: slow, ipset: fast }, clock);
    const later = clock.t + 3_600_000;
    const slowAck = enforcer.apply({
      seq: 1,
      ops: [{ op: "add", target: nftTarget, ip: "192.0.2.1", expiresAt: later }],
    });
    const fastAck = await enforcer.apply({
      seq: 2,
      ops: [{ op: "add", target: ipsetTarget, ip: "192.0.2.2", expiresAt: later }],
    });
    expect(fastAck.results).toEqual([{ key: "a", ip: "192.0.2.2", op: "add", ok: true }]);
    expect(fast.entries.has("192.0.2.2")).toBe(true);
    expect(slow.entries.size).toBe(0); // still held
    release();
    expect((await slowAck).results).toEqual([{ key: "n", ip: "192.0.2.1", op: "add", ok: true }]);
    await enforcer.stop();
  });

  it("re-reads a target for drift no more often than its driver's driftIntervalMs", async () => {
    const cloud = new MemoryDriver("ipset");
    cloud.driftIntervalMs = 60_000;
    const clock = new ManualClock();
    const enforcer = await started({ ipset: cloud }, clock);
    await enforcer.sync({ seq: 1, targets: [{ target: ipsetTarget, entries: [] }] });
    cloud.calls.length = 0;
    await enforcer.repairDrift();
    await enforcer.repairDrift();
    expect(cloud.calls.filter((c) => c === "list")).toHaveLength(1);
    clock.t += 60_000;
    await enforcer.repairDrift();
    expect(cloud.calls.filter((c) => c === "list")).toHaveLength(2);
    await enforcer.stop();
  });

  it("runs the driver's commit after a batch that changed something; a failed commit fails the batch", async () => {
    const vendor = new MemoryDriver("ipset");
    const commits: string[] = [];
    let failCommit = false;
    vendor.commit = async (t) => {
      commits.push(t.key);
      if (failCommit) throw new Error("install refused");
    };
    const clock = new ManualClock();
    const enforcer = await started({ ipset: vendor }, clock);
    const later = clock.t + 3_600_000;
    await enforcer.apply({ seq: 1, ops: [{ op: "add", target: ipsetTarget, ip: "192.0.2.1", expiresAt: later }] });
    expect(commits).toEqual(["a"]);
    failCommit = true;
    const ack = await enforcer.apply({
      seq: 2,
      ops: [{ op: "add", target: ipsetTarget, ip: "192.0.2.2", expiresAt: later }],
    });
    expect(ack.results).toEqual([
      { key: "a", ip: "192.0.2.2", op: "add", ok: false, error: "commit failed: install refused" },
    ]);
    await enforcer.stop();
  });

  it("gives a driver with replace the whole content on a full reconcile, with the user names", async () => {
    const script = new MemoryDriver("ipset");
    const replaced: Entry[][] = [];
    script.replace = async (_t, entries) => {
      replaced.push([...entries]);
      script.entries.clear();
      for (const e of entries) script.entries.add(e.ip);
      return entries.map((e) => ({ ip: e.ip, ok: true }));
    };
    script.entries.add("203.0.113.9");
    const clock = new ManualClock();
    const enforcer = await started({ ipset: script }, clock);
    const later = clock.t + 3_600_000;
    const ack = await enforcer.sync({
      seq: 1,
      targets: [{ target: ipsetTarget, entries: [{ ip: "192.0.2.1", expiresAt: later, user: "alice" }] }],
    });
    expect(replaced).toEqual([[{ ip: "192.0.2.1", expiresAt: later, user: "alice" }]]);
    expect([...script.entries]).toEqual(["192.0.2.1"]);
    expect(ack.results).toContainEqual({ key: "a", ip: "203.0.113.9", op: "del", ok: true });
    await enforcer.stop();
  });
});

describe("enforcer and sealed secrets", () => {
  it("uses the secrets of the target as last sent by an apply for later calls (drift, expiry)", async () => {
    const seen: (string | undefined)[] = [];
    const driver = new MemoryDriver("ipset");
    const clock = new ManualClock();
    const enforcer = new Enforcer({
      backends: {
        driverFor: (t) => {
          seen.push(t.secrets?.["Bearer"]);
          return driver;
        },
      },
      clock,
      driftCheckSeconds: 0,
    });
    await enforcer.start();
    const later = clock.t + 3_600_000;
    const withSecret = (s: string): Target => ({ ...ipsetTarget, secrets: { Bearer: s } });
    await enforcer.apply({
      seq: 1,
      ops: [{ op: "add", target: withSecret("old"), ip: "192.0.2.1", expiresAt: later }],
    });
    await enforcer.apply({
      seq: 2,
      ops: [{ op: "add", target: withSecret("new"), ip: "192.0.2.2", expiresAt: later }],
    });
    seen.length = 0;
    await enforcer.repairDrift();
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["new"]));
    expect([...driver.entries].sort()).toEqual(["192.0.2.1", "192.0.2.2"]); // nothing emptied
    await enforcer.stop();
  });
});

describe("GroupQueues", () => {
  it("runs one key in order, and at most `limit` tasks of a group at once", async () => {
    const q = new GroupQueues();
    const group = {};
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const task = (name: string, ms: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      running--;
    };
    await Promise.all([
      q.run(group, 2, "t1", task("a1", 30)),
      q.run(group, 2, "t1", task("a2", 1)),
      q.run(group, 2, "t2", task("b1", 5)),
      q.run(group, 2, "t3", task("c1", 5)),
    ]);
    expect(peak).toBe(2);
    expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
    await q.idle();
    expect(q.size).toBe(0);
  });
});
