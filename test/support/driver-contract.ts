/**
 * The driver contract (issue #10 item 5): one suite every enforcement driver passes, the way drizzle
 * runs one suite against every database driver. Each driver brings a harness around a real target
 * (ipset or nft in a namespace, a real HAProxy, a real executable, a real webhook receiver); the suite
 * drives the real enforcer and the driver through the agent protocol's messages and reads the target
 * back through the harness, never through the driver under test.
 *
 * Cases: add, add again (one copy, expiry moved), delete, delete absent, full sync (extras go,
 * missing come), drift repair (skipped, with the reason, for targets that cannot be read back), expiry
 * (the enforcer removes the entry on time).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import type { Target } from "@postern/shared";
import type { DriverResolver } from "../../agent/src/backends/driver.ts";
import { Enforcer } from "../../agent/src/enforcer.ts";
import { ManualClock } from "../../agent/src/testing/manual-clock.ts";

/** One driver's real target, as the contract needs it. */
export interface ContractHarness {
  /** The target the enforcer is given. */
  readonly target: Target;
  /** Resolves the target's driver (normally a `DriverSet` over the real registry). */
  readonly drivers: DriverResolver;
  /** Three addresses the target accepts (distinct, normalised). */
  readonly ips: readonly [string, string, string];
  /** The addresses really on the target, read without the driver (duplicates kept). */
  present(): Promise<string[]>;
  /** Changes the target behind the agent's back; absent when the target cannot be read back. */
  readonly drift?: { add(ip: string): Promise<void>; remove(ip: string): Promise<void> };
  /** Why drift repair is not part of this driver's contract, when `drift` is absent. */
  readonly noDriftReason?: string;
  /** Releases what the harness started. */
  close(): Promise<void>;
}

const HOUR = 3_600_000;

/**
 * Registers the contract suite for one driver. `make` builds the harness (real parts); the suite is
 * skipped with `skipReason` when the parts are not available here.
 */
export function driverContract(name: string, make: () => Promise<ContractHarness>, skipReason = ""): void {
  describe.skipIf(skipReason !== "")(`driver contract: ${name}`, () => {
    let h: ContractHarness;
    let clock: ManualClock;
    let enforcer: Enforcer;
    let seq = 0;
    const sorted = async (): Promise<string[]> => (await h.present()).sort();
    const add = (ip: string, expiresAt: number) =>
      enforcer.apply({ seq: ++seq, ops: [{ op: "add", target: h.target, ip, expiresAt, user: "alice" }] });
    const del = (ip: string) => enforcer.apply({ seq: ++seq, ops: [{ op: "del", target: h.target, ip }] });

    beforeAll(async () => {
      h = await make();
      clock = new ManualClock();
      clock.t = Date.now();
      enforcer = new Enforcer({ backends: h.drivers, clock, driftCheckSeconds: 0, logger: pino({ level: "silent" }) });
      await enforcer.start();
      await enforcer.sync({ seq: ++seq, targets: [{ target: h.target, entries: [] }] });
    });

    afterAll(async () => {
      await enforcer?.stop();
      await h?.close();
    });

    it("add: the address lands on the target and the ack says ok", async () => {
      const [a] = h.ips;
      const ack = await add(a, clock.t + HOUR);
      expect(ack.results).toEqual([{ key: h.target.key, ip: a, op: "add", ok: true }]);
      expect(await sorted()).toEqual([a]);
    });

    it("add again: still one copy, ack ok", async () => {
      const [a] = h.ips;
      const ack = await add(a, clock.t + 2 * HOUR);
      expect(ack.results).toEqual([{ key: h.target.key, ip: a, op: "add", ok: true }]);
      expect(await sorted()).toEqual([a]);
    });

    it("delete: the address leaves the target", async () => {
      const [a] = h.ips;
      const ack = await del(a);
      expect(ack.results).toEqual([{ key: h.target.key, ip: a, op: "del", ok: true }]);
      expect(await sorted()).toEqual([]);
    });

    it("delete absent: succeeds and changes nothing", async () => {
      const [, b] = h.ips;
      const ack = await del(b);
      expect(ack.results).toEqual([{ key: h.target.key, ip: b, op: "del", ok: true }]);
      expect(await sorted()).toEqual([]);
    });

    it("full sync: the target holds exactly the synced entries", async () => {
      const [a, b, c] = h.ips;
      await add(a, clock.t + HOUR);
      const ack = await enforcer.sync({
        seq: ++seq,
        targets: [
          {
            target: h.target,
            entries: [
              { ip: b, expiresAt: clock.t + HOUR },
              { ip: c, expiresAt: clock.t + HOUR },
            ],
          },
        ],
      });
      expect(ack.results.filter((r) => !r.ok)).toEqual([]);
      expect(ack.results).toContainEqual({ key: h.target.key, ip: b, op: "add", ok: true });
      expect(await sorted()).toEqual([b, c].sort());
    });

    it("drift repair: an address removed behind the agent's back comes back, one added goes", async (ctx) => {
      if (!h.drift) {
        ctx.skip(h.noDriftReason ?? "the target cannot be read back");
        return;
      }
      const [a, b, c] = h.ips;
      await h.drift.remove(b);
      await h.drift.add(a);
      expect(await sorted()).toEqual([a, c].sort());
      await enforcer.repairDrift();
      expect(await sorted()).toEqual([b, c].sort());
    });

    it("expiry: the enforcer removes an entry when it expires", async () => {
      const [a, b, c] = h.ips;
      await enforcer.sync({
        seq: ++seq,
        targets: [
          {
            target: h.target,
            entries: [
              { ip: a, expiresAt: clock.t + 10_000 },
              { ip: b, expiresAt: clock.t + HOUR },
            ],
          },
        ],
      });
      expect(await sorted()).toEqual([a, b].sort());
      await clock.advance(11_000, enforcer);
      expect(await sorted()).toEqual([b]);
      expect(c).not.toBe(a);
    });
  });
}
