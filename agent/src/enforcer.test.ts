import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Entry, Op, Target } from "@postern/shared";
import type { AddHints, Backend, EntryOutcome } from "./backends/backend.ts";
import { Enforcer } from "./enforcer.ts";
import { ManualClock } from "./testing/manual-clock.ts";

/** The target side faked in memory: sets by name, address → native expiry (ms). Not the logic under test. */
class MemoryBackend implements Backend {
  readonly type = "ipset";
  readonly sets = new Map<string, Map<string, number>>();
  readonly calls: string[] = [];
  readonly refuse = new Set<string>();
  unreachable = false;

  set(name: string): Map<string, number> {
    let s = this.sets.get(name);
    if (!s) this.sets.set(name, (s = new Map()));
    return s;
  }
  #name(target: Target): string {
    if (!("ipset" in target.acl)) throw new Error("not an ipset ACL");
    return target.acl.ipset.V4SetName;
  }
  ips(name: string): string[] {
    return [...this.set(name).keys()].sort();
  }
  /** Per add call: the addresses its hints said were absent (AddHints), as `name ip,ip`. */
  readonly believedAbsent: string[] = [];
  async add(target: Target, entries: readonly Entry[], now: number, hints?: AddHints): Promise<EntryOutcome[]> {
    if (this.unreachable) throw new Error("ipset: command not found");
    this.calls.push(`add ${this.#name(target)} ${entries.map((e) => e.ip).join(",")}`);
    const absent = entries.filter((e) => hints?.absent?.(e.ip) === true).map((e) => e.ip);
    this.believedAbsent.push(`${this.#name(target)} ${absent.join(",")}`);
    return entries.map((e) => {
      if (this.refuse.has(e.ip)) return { ip: e.ip, ok: false, error: "refused by target" };
      if (e.expiresAt > now) this.set(this.#name(target)).set(e.ip, e.expiresAt);
      return { ip: e.ip, ok: true };
    });
  }
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    if (this.unreachable) throw new Error("ipset: command not found");
    this.calls.push(`del ${this.#name(target)} ${ips.join(",")}`);
    return ips.map((ip) => {
      this.set(this.#name(target)).delete(ip);
      return { ip, ok: true };
    });
  }
  /** Records `settle` calls (Backend.settle: deferred work finished after a full reconcile). */
  async settle(target: Target): Promise<void> {
    this.calls.push(`settle ${this.#name(target)}`);
  }
  /** List every address twice (a target holding an address in two forms; Backend.list allows it). */
  listTwice = false;
  /** The next listing fails (the target answers add and remove). */
  failListOnce = false;
  async list(target: Target): Promise<string[]> {
    if (this.unreachable) throw new Error("ipset: command not found");
    if (this.failListOnce) {
      this.failListOnce = false;
      throw new Error("listing interrupted");
    }
    const ips = [...this.set(this.#name(target)).keys()];
    return this.listTwice ? ips.flatMap((ip) => [ip, ip]) : ips;
  }
}

/**
 * A MemoryBackend that reports its listing through `forEachListed` (Backend's streaming form), one
 * address per turn of the event loop as a socket's chunks would arrive; `list` must not be used.
 */
class StreamingBackend extends MemoryBackend {
  /** Throws after reporting this many addresses (a connection lost mid-listing). */
  failAfter: number | null = null;
  /** Runs once after `duringAfter` addresses were reported (a message handled while the listing is read). */
  duringListing: (() => Promise<unknown>) | null = null;
  duringAfter = 1;
  override async list(): Promise<string[]> {
    throw new Error("list() used although forEachListed is there");
  }
  async forEachListed(target: Target, fn: (ip: string) => void): Promise<void> {
    if (this.unreachable) throw new Error("ipset: command not found");
    const name = "ipset" in target.acl ? target.acl.ipset.V4SetName : "";
    const ips = [...this.set(name).keys()];
    let reported = 0;
    for (const ip of this.listTwice ? ips.flatMap((a) => [a, a]) : ips) {
      if (this.failAfter !== null && reported >= this.failAfter) throw new Error("connection lost mid-listing");
      fn(ip);
      reported++;
      await new Promise((resolve) => setImmediate(resolve));
      const during = reported >= this.duringAfter ? this.duringListing : null;
      if (during) {
        this.duringListing = null;
        await during();
      }
    }
  }
}

const target = (key: string, set: string): Target => ({
  key,
  backendId: "b0000000-0000-4000-8000-000000000001",
  backend: { ipset: {} },
  acl: { ipset: { V4SetName: set, V6SetName: "" } },
});
const T1 = target("acl-1", "set1");
const T2 = target("acl-2", "set2");

let clock: ManualClock;
let backend: MemoryBackend;
let enforcer: Enforcer;
let dir: string;

function make(options: { stateFile?: string; backend?: MemoryBackend } = {}): Enforcer {
  return new Enforcer({
    backends: new Map([["ipset", options.backend ?? backend]]),
    driftCheckSeconds: 5,
    clock,
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
  });
}

beforeEach(async () => {
  clock = new ManualClock();
  backend = new MemoryBackend();
  dir = await mkdtemp(join(tmpdir(), "postern-enforcer-"));
  enforcer = make();
  await enforcer.start();
});

afterEach(async () => {
  await enforcer.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("sync", () => {
  it("adds every desired entry, removes extras, and acks one row per (key, ip, op)", async () => {
    backend.set("set1").set("192.0.2.99", clock.t + 1e9); // put there by hand: must go
    const hour = clock.t + 3_600_000;
    const ack = await enforcer.sync({
      seq: 7,
      targets: [
        {
          target: T1,
          entries: [
            { ip: "192.0.2.1", expiresAt: hour },
            { ip: "192.0.2.2", expiresAt: hour },
            { ip: "192.0.2.3", expiresAt: clock.t - 1 },
            { ip: "not-an-ip", expiresAt: hour },
          ],
        },
      ],
    });
    expect(backend.ips("set1")).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(ack.type).toBe("ack");
    expect(ack.seq).toBe(7);
    expect(ack.results).toHaveLength(5);
    expect(ack.results).toEqual(
      expect.arrayContaining([
        { key: "acl-1", ip: "192.0.2.1", op: "add", ok: true },
        { key: "acl-1", ip: "192.0.2.2", op: "add", ok: true },
        { key: "acl-1", ip: "192.0.2.99", op: "del", ok: true },
        expect.objectContaining({
          key: "acl-1",
          ip: "192.0.2.3",
          op: "add",
          ok: false,
          error: expect.stringMatching(/expired/),
        }),
        expect.objectContaining({ key: "acl-1", ip: "not-an-ip", op: "add", ok: false }),
      ]),
    );
  });

  it("re-adds present entries so that their expiry is refreshed", async () => {
    await enforcer.sync({
      seq: 1,
      targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: clock.t + 1000 }] }],
    });
    await enforcer.sync({
      seq: 2,
      targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: clock.t + 9000 }] }],
    });
    expect(backend.set("set1").get("192.0.2.1")).toBe(clock.t + 9000);
  });

  it("empties targets that left the desired state", async () => {
    const exp = clock.t + 60_000;
    await enforcer.sync({
      seq: 1,
      targets: [
        { target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] },
        {
          target: T2,
          entries: [
            { ip: "192.0.2.5", expiresAt: exp },
            { ip: "192.0.2.6", expiresAt: exp },
          ],
        },
      ],
    });
    expect(backend.ips("set2")).toEqual(["192.0.2.5", "192.0.2.6"]);
    const ack = await enforcer.sync({
      seq: 2,
      targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] }],
    });
    expect(backend.ips("set2")).toEqual([]);
    expect(backend.ips("set1")).toEqual(["192.0.2.1"]);
    expect(ack.results).toEqual(
      expect.arrayContaining([
        { key: "acl-2", ip: "192.0.2.5", op: "del", ok: true },
        { key: "acl-2", ip: "192.0.2.6", op: "del", ok: true },
      ]),
    );
  });

  it("empties the old set when a target's configuration changes", async () => {
    const exp = clock.t + 60_000;
    await enforcer.sync({ seq: 1, targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] }] });
    await enforcer.sync({
      seq: 2,
      targets: [{ target: target("acl-1", "renamed"), entries: [{ ip: "192.0.2.1", expiresAt: exp }] }],
    });
    expect(backend.ips("set1")).toEqual([]);
    expect(backend.ips("renamed")).toEqual(["192.0.2.1"]);
  });

  it("reports every entry failed when the target is unreachable, and never throws", async () => {
    backend.unreachable = true;
    const ack = await enforcer.sync({
      seq: 3,
      targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: clock.t + 1000 }] }],
    });
    expect(ack.results).toEqual([
      { key: "acl-1", ip: "192.0.2.1", op: "add", ok: false, error: "ipset: command not found" },
    ]);
  });

  it("fails entries of a backend type this agent lacks", async () => {
    const haproxyTarget: Target = {
      key: "acl-h",
      backendId: "x",
      backend: { haproxy: { Protocol: "unix", Address: "/nope" } },
      acl: { haproxy: { ID: 3 } },
    };
    const ack = await enforcer.sync({
      seq: 4,
      targets: [{ target: haproxyTarget, entries: [{ ip: "192.0.2.1", expiresAt: clock.t + 1000 }] }],
    });
    expect(ack.results).toEqual([
      expect.objectContaining({
        key: "acl-h",
        ip: "192.0.2.1",
        op: "add",
        ok: false,
        error: expect.stringMatching(/not supported/),
      }),
    ]);
  });
});

describe("settle (Backend.settle after a full reconcile)", () => {
  it("is called once per target after a sync's changes, never for an apply's or a drift check's", async () => {
    const exp = clock.t + 3_600_000;
    await enforcer.sync({
      seq: 1,
      targets: [
        { target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] },
        { target: T2, entries: [{ ip: "192.0.2.2", expiresAt: exp }] },
      ],
    });
    expect(backend.calls).toEqual(["add set1 192.0.2.1", "settle set1", "add set2 192.0.2.2", "settle set2"]);
    backend.calls.length = 0;
    await enforcer.apply({ seq: 2, ops: [{ op: "add", target: T1, ip: "192.0.2.3", expiresAt: exp }] });
    backend.set("set1").delete("192.0.2.1");
    await clock.advance(5_000, enforcer);
    expect(backend.calls).toEqual(["add set1 192.0.2.3", "add set1 192.0.2.1"]);
  });
});

describe("add hints (AddHints: addresses believed absent)", () => {
  it("believes absent what no key on the target held before the message, nothing it held or removed in it", async () => {
    const exp = clock.t + 3_600_000;
    await enforcer.apply({ seq: 1, ops: [{ op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp }] });
    await enforcer.apply({
      seq: 2,
      ops: [
        { op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp + 1_000 }, // held: an extension
        { op: "add", target: T1, ip: "192.0.2.2", expiresAt: exp }, // new
        { op: "del", target: T1, ip: "192.0.2.1" },
        { op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp }, // held before the message
      ],
    });
    // Another key on the same set (same physical target) holding the address: not absent either.
    const sameSet = { ...T1, key: "acl-3" };
    await enforcer.apply({ seq: 3, ops: [{ op: "add", target: sameSet, ip: "192.0.2.2", expiresAt: exp }] });
    await enforcer.apply({ seq: 4, ops: [{ op: "del", target: T1, ip: "192.0.2.9" }] });
    await enforcer.apply({ seq: 5, ops: [{ op: "add", target: T1, ip: "192.0.2.9", expiresAt: exp }] });
    expect(backend.believedAbsent).toEqual(["set1 192.0.2.1", "set1 192.0.2.2", "set1 ", "set1 192.0.2.9"]);
  });

  it("believes absent what a sound listing showed missing, and nothing after a listing that failed", async () => {
    const exp = clock.t + 3_600_000;
    backend.set("set1").set("192.0.2.1", exp);
    const entries = [
      { ip: "192.0.2.1", expiresAt: exp },
      { ip: "192.0.2.2", expiresAt: exp },
    ];
    await enforcer.sync({ seq: 1, targets: [{ target: T1, entries }] });
    expect(backend.believedAbsent).toEqual(["set1 192.0.2.2"]);
    // a drift check repairs what went missing
    backend.set("set1").delete("192.0.2.1");
    await clock.advance(5_000, enforcer);
    expect(backend.believedAbsent.at(-1)).toBe("set1 192.0.2.1");
    // a sync whose listing failed adds every address, none believed absent
    backend.failListOnce = true;
    await enforcer.sync({ seq: 2, targets: [{ target: T1, entries }] });
    expect(backend.believedAbsent.at(-1)).toBe("set1 ");
  });
});

describe("apply", () => {
  it("processes ops in order, batched into one add and one remove call per target", async () => {
    const exp = clock.t + 60_000;
    backend.set("set1").set("192.0.2.3", exp);
    backend.calls.length = 0;
    const ops: Op[] = [
      { op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp },
      { op: "add", target: T1, ip: "192.0.2.2", expiresAt: exp },
      { op: "del", target: T1, ip: "192.0.2.1" },
      { op: "del", target: T1, ip: "192.0.2.3" },
      { op: "add", target: T2, ip: "2001:DB8::1", expiresAt: exp },
    ];
    const ack = await enforcer.apply({ seq: 11, ops });
    expect(backend.ips("set1")).toEqual(["192.0.2.2"]);
    expect(backend.calls).toEqual(["add set1 192.0.2.2", "del set1 192.0.2.1,192.0.2.3", "add set2 2001:db8::1"]);
    expect(ack).toEqual({
      type: "ack",
      seq: 11,
      results: [
        { key: "acl-1", ip: "192.0.2.1", op: "add", ok: true },
        { key: "acl-1", ip: "192.0.2.2", op: "add", ok: true },
        { key: "acl-1", ip: "192.0.2.1", op: "del", ok: true },
        { key: "acl-1", ip: "192.0.2.3", op: "del", ok: true },
        // the address is echoed as the server sent it
        { key: "acl-2", ip: "2001:DB8::1", op: "add", ok: true },
      ],
    });
  });

  it("handles messages strictly in order even when they arrive together", async () => {
    const exp = clock.t + 60_000;
    const first = enforcer.apply({ seq: 1, ops: [{ op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp }] });
    const second = enforcer.apply({ seq: 2, ops: [{ op: "del", target: T1, ip: "192.0.2.1" }] });
    const third = enforcer.apply({ seq: 3, ops: [{ op: "add", target: T1, ip: "192.0.2.9", expiresAt: exp }] });
    const acks = await Promise.all([first, second, third]);
    expect(acks.map((a) => a.seq)).toEqual([1, 2, 3]);
    expect(backend.calls).toEqual(["add set1 192.0.2.1", "del set1 192.0.2.1", "add set1 192.0.2.9"]);
    expect(backend.ips("set1")).toEqual(["192.0.2.9"]);
  });

  it("reports the target's refusal per entry", async () => {
    backend.refuse.add("192.0.2.66");
    const exp = clock.t + 60_000;
    const ack = await enforcer.apply({
      seq: 5,
      ops: [
        { op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp },
        { op: "add", target: T1, ip: "192.0.2.66", expiresAt: exp },
      ],
    });
    expect(ack.results).toEqual([
      { key: "acl-1", ip: "192.0.2.1", op: "add", ok: true },
      { key: "acl-1", ip: "192.0.2.66", op: "add", ok: false, error: "refused by target" },
    ]);
  });

  it("never adds an entry whose expiry has passed", async () => {
    const ack = await enforcer.apply({ seq: 6, ops: [{ op: "add", target: T1, ip: "192.0.2.1", expiresAt: clock.t }] });
    expect(backend.ips("set1")).toEqual([]);
    expect(backend.calls.filter((c) => c.startsWith("add"))).toEqual([]);
    expect(ack.results).toEqual([expect.objectContaining({ key: "acl-1", ip: "192.0.2.1", op: "add", ok: false })]);
  });

  it("keeps an address another key on the same target still holds", async () => {
    const exp = clock.t + 60_000;
    const sameSet = target("acl-3", "set1");
    await enforcer.apply({
      seq: 1,
      ops: [
        { op: "add", target: T1, ip: "192.0.2.1", expiresAt: exp },
        { op: "add", target: sameSet, ip: "192.0.2.1", expiresAt: exp + 1000 },
      ],
    });
    const ack = await enforcer.apply({ seq: 2, ops: [{ op: "del", target: T1, ip: "192.0.2.1" }] });
    expect(ack.results).toEqual([{ key: "acl-1", ip: "192.0.2.1", op: "del", ok: true }]);
    expect(backend.ips("set1")).toEqual(["192.0.2.1"]);
    await enforcer.apply({ seq: 3, ops: [{ op: "del", target: sameSet, ip: "192.0.2.1" }] });
    expect(backend.ips("set1")).toEqual([]);
  });

  it("removes an address from a target it never held (fail closed)", async () => {
    backend.set("set2").set("192.0.2.7", clock.t + 1e6);
    const ack = await enforcer.apply({ seq: 1, ops: [{ op: "del", target: T2, ip: "192.0.2.7" }] });
    expect(backend.ips("set2")).toEqual([]);
    expect(ack.results).toEqual([{ key: "acl-2", ip: "192.0.2.7", op: "del", ok: true }]);
  });
});

describe("expiry", () => {
  it("removes entries at their expiry without any server", async () => {
    await enforcer.apply({
      seq: 1,
      ops: [
        { op: "add", target: T1, ip: "192.0.2.1", expiresAt: clock.t + 1_000 },
        { op: "add", target: T1, ip: "192.0.2.2", expiresAt: clock.t + 5_000 },
      ],
    });
    await clock.advance(999, enforcer);
    expect(backend.ips("set1")).toEqual(["192.0.2.1", "192.0.2.2"]);
    await clock.advance(1, enforcer);
    expect(backend.ips("set1")).toEqual(["192.0.2.2"]);
    expect(enforcer.desiredState()[0]?.entries.map((e) => e.ip)).toEqual(["192.0.2.2"]);
    await clock.advance(4_000, enforcer);
    expect(backend.ips("set1")).toEqual([]);
  });

  it("re-arms past the longest timer for far expiries (e.g. 28 days)", async () => {
    const far = clock.t + 28 * 24 * 3_600_000;
    await enforcer.apply({ seq: 1, ops: [{ op: "add", target: T1, ip: "192.0.2.1", expiresAt: far }] });
    await clock.advance(far - clock.t - 1, enforcer);
    expect(backend.ips("set1")).toEqual(["192.0.2.1"]);
    await clock.advance(1, enforcer);
    expect(backend.ips("set1")).toEqual([]);
  });
});

describe("drift repair", () => {
  it("re-adds entries that vanished from the target and removes extras every driftCheckSeconds", async () => {
    const exp = clock.t + 3_600_000;
    await enforcer.sync({
      seq: 1,
      targets: [
        {
          target: T1,
          entries: [
            { ip: "192.0.2.1", expiresAt: exp },
            { ip: "192.0.2.2", expiresAt: exp },
          ],
        },
      ],
    });
    // e.g. an HAProxy reload dropped the runtime entries; someone added one by hand
    backend.set("set1").clear();
    backend.set("set1").set("198.51.100.1", exp);
    backend.calls.length = 0;
    await clock.advance(4_999, enforcer);
    expect(backend.ips("set1")).toEqual(["198.51.100.1"]);
    await clock.advance(1, enforcer);
    expect(backend.ips("set1")).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(backend.calls).toEqual(["add set1 192.0.2.1,192.0.2.2", "del set1 198.51.100.1"]);
    // nothing to do on the next round: no calls
    backend.calls.length = 0;
    await clock.advance(5_000, enforcer);
    expect(backend.calls).toEqual([]);
  });

  it("tells onDriftChecked how many addresses the targets listed in each drift check", async () => {
    const counts: number[] = [];
    const watched = new Enforcer({
      backends: new Map([["ipset", backend]]),
      driftCheckSeconds: 5,
      clock,
      onDriftChecked: (listed) => counts.push(listed),
    });
    await watched.start();
    try {
      const exp = clock.t + 3_600_000;
      await watched.sync({
        seq: 1,
        targets: [
          { target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] },
          { target: T2, entries: [{ ip: "192.0.2.2", expiresAt: exp }] },
        ],
      });
      backend.set("set1").set("198.51.100.1", exp);
      await clock.advance(5_000, watched);
      expect(counts).toEqual([3]);
      await clock.advance(5_000, watched);
      expect(counts).toEqual([3, 2]);
    } finally {
      await watched.stop();
    }
  });

  it("takes an address listed twice as one (kept once when wanted, removed once when not)", async () => {
    const exp = clock.t + 3_600_000;
    await enforcer.sync({ seq: 1, targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: exp }] }] });
    backend.set("set1").set("198.51.100.1", exp);
    backend.listTwice = true;
    backend.calls.length = 0;
    await clock.advance(5_000, enforcer);
    expect(backend.calls).toEqual(["del set1 198.51.100.1"]);
    expect(backend.ips("set1")).toEqual(["192.0.2.1"]);
  });

  it("retries emptying a removed target until the target is reachable again", async () => {
    const exp = clock.t + 3_600_000;
    await enforcer.sync({ seq: 1, targets: [{ target: T2, entries: [{ ip: "192.0.2.5", expiresAt: exp }] }] });
    backend.unreachable = true;
    await enforcer.sync({ seq: 2, targets: [] });
    backend.unreachable = false;
    expect(backend.ips("set2")).toEqual(["192.0.2.5"]);
    await clock.advance(5_000, enforcer);
    expect(backend.ips("set2")).toEqual([]);
  });
});

describe("drift repair with a streamed listing (Backend.forEachListed)", () => {
  let streaming: StreamingBackend;
  let streamed: Enforcer;
  const exp = (): number => clock.t + 3_600_000;

  beforeEach(async () => {
    streaming = new StreamingBackend();
    streamed = make({ backend: streaming });
    await streamed.start();
  });
  afterEach(async () => {
    await streamed.stop();
  });

  it("re-adds what is missing, removes extras once (an address listed twice is one), as with list()", async () => {
    const e = exp();
    await streamed.sync({
      seq: 1,
      targets: [
        {
          target: T1,
          entries: ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((ip) => ({ ip, expiresAt: e })),
        },
      ],
    });
    streaming.set("set1").delete("192.0.2.2");
    streaming.set("set1").set("198.51.100.1", e);
    streaming.listTwice = true;
    streaming.calls.length = 0;
    await clock.advance(5_000, streamed);
    expect(streaming.calls).toEqual(["add set1 192.0.2.2", "del set1 198.51.100.1"]);
    expect(streaming.ips("set1")).toEqual(["192.0.2.1", "192.0.2.2", "192.0.2.3"]);
    streaming.calls.length = 0;
    await clock.advance(5_000, streamed);
    expect(streaming.calls).toEqual([]);
  });

  it("discards a listing that failed part-way: a drift check changes nothing, a sync adds and removes nothing", async () => {
    const e = exp();
    await streamed.sync({ seq: 1, targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: e }] }] });
    streaming.set("set1").set("198.51.100.1", e);
    streaming.set("set1").set("198.51.100.2", e);
    streaming.set("set1").delete("192.0.2.1");
    streaming.failAfter = 1;
    streaming.calls.length = 0;
    await clock.advance(5_000, streamed);
    expect(streaming.calls).toEqual([]);
    const ack = await streamed.sync({
      seq: 2,
      targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt: e }] }],
    });
    expect(streaming.calls).toEqual(["add set1 192.0.2.1", "settle set1"]);
    expect(ack.results.filter((r) => r.op === "del")).toEqual([]);
    streaming.failAfter = null;
    await clock.advance(5_000, streamed);
    expect(streaming.ips("set1")).toEqual(["192.0.2.1"]);
  });

  it("keeps an address the server granted while the listing was read, though it was listed as extra", async () => {
    const e = exp();
    const first = Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`);
    await streamed.sync({ seq: 1, targets: [{ target: T1, entries: first.map((ip) => ({ ip, expiresAt: e })) }] });
    // Listed first, while nobody wants it yet; 192.0.2.20 is missing (drift to repair).
    streaming.set("set1").clear();
    for (const ip of ["198.51.100.1", ...first.slice(0, 19)]) streaming.set("set1").set(ip, e);
    streaming.calls.length = 0;
    let applied: Promise<unknown> = Promise.resolve();
    streaming.duringListing = async () => {
      // Not awaited: the apply's backend calls queue behind this listing on the same target.
      applied = streamed.apply({ seq: 2, ops: [{ op: "add", target: T1, ip: "198.51.100.1", expiresAt: e }] });
    };
    await clock.advance(5_000, streamed);
    await applied;
    await streamed.idle();
    expect(streaming.calls.filter((c) => c.startsWith("del"))).toEqual([]);
    expect(streaming.ips("set1")).toEqual([...first, "198.51.100.1"].sort());
  });

  it("believes nothing absent for an apply queued behind a drift check that may have added its addresses", async () => {
    const e = exp();
    const first = Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`);
    await streamed.sync({ seq: 1, targets: [{ target: T1, entries: first.map((ip) => ({ ip, expiresAt: e })) }] });
    streaming.believedAbsent.length = 0;
    let applied: Promise<unknown> = Promise.resolve();
    streaming.duringListing = async () => {
      // New to the table while the listing (which does not show it) is read: the drift check adds it.
      applied = streamed.apply({ seq: 2, ops: [{ op: "add", target: T1, ip: "198.51.100.1", expiresAt: e }] });
    };
    await clock.advance(5_000, streamed);
    await applied;
    await streamed.idle();
    // Believed absent once (by the drift check, which read the target), not again by the apply behind it.
    expect(streaming.believedAbsent.filter((b) => b.includes("198.51.100.1"))).toEqual(["set1 198.51.100.1"]);
    expect(streaming.ips("set1")).toEqual([...first, "198.51.100.1"].sort());
  });

  it("reads the target again when the entry table was renumbered while the listing was read", async () => {
    const e = exp();
    const all = Array.from({ length: 100 }, (_, i) => `10.0.0.${i + 1}`);
    await streamed.sync({ seq: 1, targets: [{ target: T1, entries: all.map((ip) => ({ ip, expiresAt: e })) }] });
    // 10.0.0.100 is missing. Every other address is listed (its slot marked), then 80 revocations make
    // the table compact, and 10.0.0.100 takes a low slot: with those marks it would look held.
    streaming.set("set1").delete("10.0.0.100");
    streaming.duringAfter = 99;
    let applied: Promise<unknown> = Promise.resolve();
    streaming.duringListing = async () => {
      applied = streamed.apply({
        seq: 2,
        ops: all.slice(0, 80).map((ip) => ({ op: "del" as const, target: T1, ip })),
      });
    };
    await clock.advance(5_000, streamed);
    await applied;
    await streamed.idle();
    expect(streaming.ips("set1")).toEqual(all.slice(80).sort());
  });
});

describe("state file", () => {
  it("persists the desired state (mode 0600) and enforces it after a restart without a server", async () => {
    await enforcer.stop();
    const stateFile = join(dir, "agent.state.json");
    enforcer = make({ stateFile });
    await enforcer.start();
    await enforcer.sync({
      seq: 1,
      targets: [
        {
          target: T1,
          entries: [
            { ip: "192.0.2.1", expiresAt: clock.t + 10_000 },
            { ip: "192.0.2.2", expiresAt: clock.t + 60_000 },
          ],
        },
        { target: T2, entries: [{ ip: "192.0.2.5", expiresAt: clock.t + 60_000 }] },
      ],
    });
    await enforcer.apply({ seq: 2, ops: [{ op: "add", target: T2, ip: "192.0.2.6", expiresAt: clock.t + 60_000 }] });
    await enforcer.stop();
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

    // The host rebooted: the sets are empty, the server is unreachable, 20 s went by.
    clock.t += 20_000;
    const fresh = new MemoryBackend();
    fresh.set("set1").set("203.0.113.1", clock.t + 1e6); // not ours: removed on start
    enforcer = make({ stateFile, backend: fresh });
    await enforcer.start();
    expect(fresh.ips("set1")).toEqual(["192.0.2.2"]); // 192.0.2.1 expired while down: never re-added
    expect(fresh.ips("set2")).toEqual(["192.0.2.5", "192.0.2.6"]);
    await clock.advance(40_000, enforcer);
    expect(fresh.ips("set1")).toEqual([]);
    expect(fresh.ips("set2")).toEqual([]);
  });

  it("moves a corrupt state file aside and starts empty", async () => {
    await enforcer.stop();
    const stateFile = join(dir, "agent.state.json");
    await writeFile(stateFile, "{ not json", { mode: 0o600 });
    enforcer = make({ stateFile });
    await enforcer.start();
    expect(enforcer.desiredState()).toEqual([]);
    const names = await readdir(dir);
    expect(names.some((n) => n.startsWith("agent.state.json.corrupt-"))).toBe(true);
    expect(JSON.parse(await readFile(stateFile, "utf8"))).toMatchObject({ version: 1, targets: [] });
  });
});

it("refuses work after stop", async () => {
  await enforcer.stop();
  await expect(enforcer.apply({ seq: 1, ops: [] })).rejects.toThrow(/stopped/);
});
