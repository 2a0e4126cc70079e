/**
 * IpsetBackend against real ipset + iptables in a namespace pair joined by a veth: the server namespace
 * drops TCP to the test HTTP port unless the source is in the set, and the client namespace really
 * tries to connect. Sets and rules live only inside the namespaces and vanish with them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { IpsetBackend, missingSetMessage } from "../../agent/src/backends/ipset/driver.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import type { CommandRunner } from "../../agent/src/process/runner.ts";
import { createNetnsPair, dropUnlessInSet, netnsRunner, netnsSupport, sleep } from "../support/netns.ts";
import type { NetnsHttpServer, NetnsPair } from "../support/netns.ts";

const support = await netnsSupport();
const haveIpset = await new ExecaRunner()
  .run("ipset", ["-v"], { timeoutMs: 5_000 })
  .then(() => true)
  .catch(() => false);
const haveIptables = await new ExecaRunner()
  .run("iptables", ["-V"], { timeoutMs: 5_000 })
  .then(() => true)
  .catch(() => false);
const skipReason = !support.ok
  ? support.reason
  : !haveIpset
    ? "the ipset command is not installed"
    : !haveIptables
      ? "iptables is not installed"
      : "";
if (skipReason) console.warn(`ipset.real.test: SKIPPED: ${skipReason}`);

const HOUR = 3_600_000;

describe.skipIf(skipReason !== "")("IpsetBackend with real ipset + iptables in a namespace pair", () => {
  let pair: NetnsPair;
  let http: NetnsHttpServer;
  let url: string;
  let url6: string;
  let backend: IpsetBackend;
  const calls: string[] = [];
  const v4 = `pv4t${process.pid}`;
  const v6 = `pv6t${process.pid}`;
  const plain = `pv4n${process.pid}`;
  let target: Target;

  beforeAll(async () => {
    pair = await createNetnsPair();
    const ns = pair.server.ns;
    await pair.runOk(ns, "ipset", ["create", v4, "hash:ip", "family", "inet", "timeout", "0"]);
    await pair.runOk(ns, "ipset", ["create", v6, "hash:ip", "family", "inet6", "timeout", "0"]);
    await pair.runOk(ns, "ipset", ["create", plain, "hash:ip", "family", "inet"]);
    http = await pair.startHttpServer();
    const port = String(http.port);
    await dropUnlessInSet(pair, http.port, v4);
    await dropUnlessInSet(pair, http.port, v6, "inet6");
    url = `http://${pair.server.ip}:${port}/`;
    url6 = `http://[${pair.server.ip6}]:${port}/`;
    // The backend's commands run inside the server namespace, where the sets live.
    const inner = netnsRunner(new ExecaRunner(), ns);
    const recording: CommandRunner = {
      run: (command, args, options) => {
        calls.push([command, ...args].join(" "));
        return inner.run(command, args, options);
      },
    };
    backend = new IpsetBackend({ runner: recording, useSudo: false });
    target = {
      key: "acl-ipset",
      backendId: "backend-ipset",
      backend: { ipset: {} },
      acl: { ipset: { V4SetName: v4, V6SetName: v6 } },
    };
  });

  afterAll(async () => {
    await http?.stop();
    await pair?.destroy();
  });

  it("drops traffic before add, lets it through after add, drops it again after remove", async () => {
    const client = pair.client.ip;
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });

    const now = Date.now();
    calls.length = 0;
    expect(await backend.add(target, [{ ip: client, expiresAt: now + HOUR }], now)).toEqual([{ ip: client, ok: true }]);
    expect(calls.filter((c) => c.includes("restore"))).toHaveLength(1);
    expect(await pair.request(url)).toEqual({ ok: true, status: 200 });
    expect(await backend.list(target)).toEqual([client]);

    // The native timeout is the time left until expiresAt, in seconds.
    const saved = await pair.runOk(pair.server.ns, "ipset", ["list", v4, "-output", "save"]);
    const timeout = Number(
      new RegExp(`add ${v4} ${client.replaceAll(".", "\\.")} timeout (\\d+)`).exec(saved.stdout)?.[1],
    );
    expect(timeout).toBeGreaterThan(3_590);
    expect(timeout).toBeLessThanOrEqual(3_600);

    expect(await backend.remove(target, [client])).toEqual([{ ip: client, ok: true }]);
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
    expect(await backend.list(target)).toEqual([]);
    // Removing again is fine.
    expect(await backend.remove(target, [client])).toEqual([{ ip: client, ok: true }]);
  });

  it("routes IPv6 addresses to the v6 set and enforces them", async () => {
    const now = Date.now();
    expect(await pair.request(url6)).toEqual({ ok: false, error: "timeout" });
    const client6 = pair.client.ip6.toUpperCase();
    const out = await backend.add(target, [{ ip: client6, expiresAt: now + HOUR }], now);
    expect(out).toEqual([{ ip: client6, ok: true }]);
    expect(await pair.request(url6)).toEqual({ ok: true, status: 200 });
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" }); // v4 still blocked
    expect(await backend.list(target)).toEqual([pair.client.ip6]);
    expect(await backend.remove(target, [pair.client.ip6])).toEqual([{ ip: pair.client.ip6, ok: true }]);
    expect(await pair.request(url6)).toEqual({ ok: false, error: "timeout" });
  });

  it("lets ipset's own timer end access when the expiry passes", async () => {
    const client = pair.client.ip;
    const now = Date.now();
    expect(await backend.add(target, [{ ip: client, expiresAt: now + 1_500 }], now)).toEqual([
      { ip: client, ok: true },
    ]);
    expect(await pair.request(url)).toEqual({ ok: true, status: 200 });
    // ceil(1.5 s) = 2 s of native timeout; give the kernel's garbage collection a little slack.
    await sleep(2_600);
    expect(await backend.list(target)).toEqual([]);
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
  });

  it("adds without timeout to a set made without timeout support, and gives per-entry errors", async () => {
    const now = Date.now();
    const noV6: Target = { ...target, acl: { ipset: { V4SetName: plain, V6SetName: "" } } };
    const out = await backend.add(
      noV6,
      [
        { ip: "192.0.2.1", expiresAt: now + HOUR },
        { ip: "2001:db8::5", expiresAt: now + HOUR },
        { ip: "999.1.1.1", expiresAt: now + HOUR },
      ],
      now,
    );
    expect(out.map((o) => o.ok)).toEqual([true, false, false]);
    expect(out[1]?.error).toMatch(/no IPv6 set/);
    expect(out[2]?.error).toMatch(/invalid IP address/);
    const saved = await pair.runOk(pair.server.ns, "ipset", ["list", plain, "-output", "save"]);
    expect(saved.stdout).toMatch(new RegExp(`^add ${plain} 192\\.0\\.2\\.1$`, "m"));
    expect(await backend.list(noV6)).toEqual(["192.0.2.1"]);
  });

  it("names a missing set clearly and still applies the rest of the batch", async () => {
    const now = Date.now();
    const missing = `pmiss${process.pid}`;
    const half: Target = { ...target, acl: { ipset: { V4SetName: v4, V6SetName: missing } } };
    const out = await backend.add(
      half,
      [
        { ip: "192.0.2.10", expiresAt: now + HOUR },
        { ip: "2001:db8::10", expiresAt: now + HOUR },
      ],
      now,
    );
    expect(out[0]).toEqual({ ip: "192.0.2.10", ok: true });
    expect(out[1]?.ok).toBe(false);
    expect(out[1]?.error).toBe(
      `ipset set ${missing} does not exist on this agent; create it with: ipset create ${missing} hash:ip family inet6 timeout 0`,
    );
    await expect(backend.list(half)).rejects.toThrow(/does not exist on this agent/);
    expect(await backend.remove(target, ["192.0.2.10"])).toEqual([{ ip: "192.0.2.10", ok: true }]);
  });

  it("finds the failing line of a batch the kernel refuses and applies every other line", async () => {
    // A set that holds at most 3 entries: the 4th add is refused by the kernel in the middle of the batch.
    const tiny = `pv4s${process.pid}`;
    await pair.runOk(pair.server.ns, "ipset", [
      "create",
      tiny,
      "hash:ip",
      "family",
      "inet",
      "timeout",
      "0",
      "maxelem",
      "3",
    ]);
    await pair.runOk(pair.server.ns, "ipset", ["add", tiny, "198.51.100.1"]);
    const t: Target = { ...target, acl: { ipset: { V4SetName: tiny, V6SetName: "" } } };
    const now = Date.now();
    const ips = Array.from({ length: 8 }, (_, i) => `198.51.100.${i + 1}`);
    calls.length = 0;
    const out = await backend.add(
      t,
      ips.map((ip) => ({ ip, expiresAt: now + HOUR })),
      now,
    );
    expect(out.slice(0, 3).map((o) => o.ok)).toEqual([true, true, true]);
    expect(out.slice(3).map((o) => o.ok)).toEqual([false, false, false, false, false]);
    expect(out[3]?.error).toMatch(/198\.51\.100\.4 .*full/i);
    expect(out[7]?.error).toMatch(/198\.51\.100\.8 .*full/i);
    // Narrowed down without one process per line: the batch, one read of the members, one retry.
    expect(calls.filter((c) => c.includes(" restore ")).length).toBeLessThanOrEqual(3);
    expect(new Set(await backend.list(t))).toEqual(new Set(ips.slice(0, 3)));
    // Refreshing members of a full set still works.
    const again = await backend.add(
      t,
      ips.slice(0, 3).map((ip) => ({ ip, expiresAt: now + HOUR })),
      now,
    );
    expect(again.every((o) => o.ok)).toBe(true);
  });

  describe("through one long-lived ipset process", () => {
    let shellBackend: IpsetBackend;
    const runs: string[] = [];
    const spawned: (number | undefined)[] = [];
    beforeAll(() => {
      const inner = netnsRunner(new ExecaRunner(), pair.server.ns);
      shellBackend = new IpsetBackend({
        runner: {
          run: (command, args, options) => {
            runs.push([command, ...args].join(" "));
            return inner.run(command, args, options);
          },
          spawn: (command, args, options) => {
            const proc = inner.spawn!(command, args, options);
            spawned.push(proc.pid);
            return proc;
          },
        },
        useSudo: false,
      });
    });
    afterAll(async () => {
      await shellBackend.close();
    });
    const alive = (pid: number | undefined): boolean => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    };

    it("grants and revokes by writing to the process, with no process started per batch", async () => {
      const now = Date.now();
      expect((await pair.request(url)).ok).toBe(false);
      runs.length = 0;
      const added = await shellBackend.add(target, [{ ip: pair.client.ip, expiresAt: now + HOUR }], now);
      expect(added).toEqual([{ ip: pair.client.ip, ok: true }]);
      expect(await pair.request(url)).toMatchObject({ ok: true, status: 200 });
      const removed = await shellBackend.remove(target, [pair.client.ip, "10.99.0.1"]);
      expect(removed.every((o) => o.ok)).toBe(true);
      expect((await pair.request(url)).ok).toBe(false);
      // The set headers were read once (ipset list -t); no restore ran; one process served both batches.
      expect(runs.filter((c) => c.includes(" restore "))).toEqual([]);
      expect(spawned).toHaveLength(1);
      expect(alive(spawned[0])).toBe(true);
    });

    it("falls back to ipset restore, line by line, when the process reports an error", async () => {
      const now = Date.now();
      const t: Target = { ...target, acl: { ipset: { V4SetName: `pmiss${process.pid}`, V6SetName: v6 } } };
      runs.length = 0;
      const out = await shellBackend.add(
        t,
        [
          { ip: "192.0.2.7", expiresAt: now + HOUR },
          { ip: "2001:db8::7", expiresAt: now + HOUR },
        ],
        now,
      );
      expect(out[0]).toMatchObject({ ok: false, error: expect.stringContaining("does not exist") });
      expect(out[1]).toEqual({ ip: "2001:db8::7", ok: true });
      expect(await backend.list({ ...target, acl: { ipset: { V4SetName: "", V6SetName: v6 } } })).toContain(
        "2001:db8::7",
      );
      await shellBackend.remove(t, ["2001:db8::7"]);
    });

    it("starts a new process when the old one died, and stops it by its PID on close", async () => {
      const first = spawned.at(-1);
      process.kill(first!, "SIGKILL");
      await sleep(100);
      const now = Date.now();
      const out = await shellBackend.add(target, [{ ip: pair.client.ip, expiresAt: now + HOUR }], now);
      expect(out).toEqual([{ ip: pair.client.ip, ok: true }]);
      expect(await pair.request(url)).toMatchObject({ ok: true });
      const second = spawned.at(-1);
      expect(second).not.toBe(first);
      expect(alive(second)).toBe(true);
      await shellBackend.remove(target, [pair.client.ip]);
      await shellBackend.close();
      await sleep(100);
      expect(alive(second)).toBe(false);
    });
  });

  it("adds 10,000 entries in one ipset restore", async () => {
    const now = Date.now();
    const ips = Array.from(
      { length: 10_000 },
      (_, i) => `10.${100 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`,
    );
    const big = `pv4b${process.pid}`;
    await pair.runOk(pair.server.ns, "ipset", [
      "create",
      big,
      "hash:ip",
      "family",
      "inet",
      "timeout",
      "0",
      "maxelem",
      "65536",
    ]);
    const t: Target = { ...target, acl: { ipset: { V4SetName: big, V6SetName: "" } } };
    calls.length = 0;
    const started = performance.now();
    const out = await backend.add(
      t,
      ips.map((ip) => ({ ip, expiresAt: now + HOUR })),
      now,
    );
    const elapsed = performance.now() - started;
    expect(out).toHaveLength(10_000);
    expect(out.every((o) => o.ok)).toBe(true);
    expect(calls.filter((c) => c.includes(" restore "))).toHaveLength(1);
    const listed = await backend.list(t);
    expect(listed).toHaveLength(10_000);
    expect(new Set(listed)).toEqual(new Set(ips));
    console.info(`ipset.real.test: 10,000 entries added in ${elapsed.toFixed(0)} ms (one restore)`);

    // Streamed (Backend.forEachListed through a spawned `ipset list`): ~400 kB of output read from the
    // pipe in chunks cut mid-line, member by member; what list() gives, and a missing set named.
    const inner = netnsRunner(new ExecaRunner(), pair.server.ns);
    const spawnedLists: string[] = [];
    const streaming = new IpsetBackend({
      runner: {
        run: (command, args, options) => inner.run(command, args, options),
        spawn: (command, args, options) => {
          spawnedLists.push([command, ...args].join(" "));
          return inner.spawn!(command, args, options);
        },
      },
      useSudo: false,
      interactive: false,
    });
    const streamed: string[] = [];
    await streaming.forEachListed(t, (ip) => streamed.push(ip));
    expect(spawnedLists).toEqual([`ipset list ${big} -output save`]);
    expect(streamed).toHaveLength(10_000);
    expect(new Set(streamed)).toEqual(new Set(ips));
    expect(await streaming.list(t)).toEqual(streamed);
    const missing = `pmiss${process.pid}`;
    await expect(
      streaming.forEachListed({ ...t, acl: { ipset: { V4SetName: missing, V6SetName: "" } } }, () => undefined),
    ).rejects.toThrow(missingSetMessage(missing, "inet"));
    const removed = await backend.remove(t, ips);
    expect(removed.every((o) => o.ok)).toBe(true);
    expect(await backend.list(t)).toEqual([]);
  });
});
