/**
 * NftablesDriver against real nft in a namespace pair joined by a veth (issue #10 item 9): the server
 * namespace drops TCP to the test HTTP port unless the source is in the table's set, and the client
 * namespace really tries to connect. Table, sets and chain live only inside the namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { NftablesDriver } from "../../agent/src/backends/nftables/driver.ts";
import { detectNftables } from "../../agent/src/backends/nftables/capability.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import type { CommandRunner } from "../../agent/src/process/runner.ts";
import { createNetnsPair, netnsRunner, netnsSupport, sleep } from "../support/netns.ts";
import type { NetnsHttpServer, NetnsPair } from "../support/netns.ts";

const support = await netnsSupport();
const haveNft = await new ExecaRunner()
  .run("nft", ["--version"], { timeoutMs: 5_000 })
  .then((r) => r.exitCode === 0)
  .catch(() => false);
const skipReason = !support.ok ? support.reason : !haveNft ? "nft is not installed (apt-get install nftables)" : "";
if (skipReason) console.warn(`nftables.real.test: SKIPPED: ${skipReason}`);

const HOUR = 3_600_000;

describe.skipIf(skipReason !== "")("NftablesDriver with real nft in a namespace pair", () => {
  let pair: NetnsPair;
  let http: NetnsHttpServer;
  let url: string;
  let url6: string;
  let runner: CommandRunner;
  let driver: NftablesDriver;
  const calls: string[] = [];
  const target: Target = {
    key: "acl-nft",
    backendId: "backend-nft",
    backend: { nftables: {} },
    acl: { nftables: { Table: "inet postern", V4SetName: "allow4", V6SetName: "allow6" } },
  };

  beforeAll(async () => {
    pair = await createNetnsPair();
    const ns = pair.server.ns;
    http = await pair.startHttpServer();
    const port = String(http.port);
    const nft = (...args: string[]) => pair.runOk(ns, "nft", args);
    await nft("add", "table", "inet", "postern");
    await nft("add", "set", "inet", "postern", "allow4", "{ type ipv4_addr; flags timeout; }");
    await nft("add", "set", "inet", "postern", "allow6", "{ type ipv6_addr; flags timeout; }");
    await nft("add", "chain", "inet", "postern", "input", "{ type filter hook input priority 0; policy accept; }");
    await nft("add", "rule", "inet", "postern", "input", "tcp", "dport", port, "ip", "saddr", "!=", "@allow4", "drop");
    await nft("add", "rule", "inet", "postern", "input", "tcp", "dport", port, "ip6", "saddr", "!=", "@allow6", "drop");
    url = `http://${pair.server.ip}:${port}/`;
    url6 = `http://[${pair.server.ip6}]:${port}/`;
    const inner = netnsRunner(new ExecaRunner(), ns);
    runner = {
      run: (command, args, options) => {
        calls.push([command, ...args].join(" "));
        return inner.run(command, args, options);
      },
    };
    driver = new NftablesDriver({ runner, useSudo: false });
  });

  afterAll(async () => {
    await http?.stop();
    await pair?.destroy();
  });

  it("drops traffic before add, lets it through after add (one nft -f per batch), drops it after remove", async () => {
    const client = pair.client.ip;
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
    const now = Date.now();
    calls.length = 0;
    const out = await driver.add(
      target,
      [
        { ip: client, expiresAt: now + HOUR },
        { ip: "192.0.2.7", expiresAt: now + HOUR },
      ],
      now,
    );
    expect(out).toEqual([
      { ip: client, ok: true },
      { ip: "192.0.2.7", ok: true },
    ]);
    expect(calls).toEqual(["nft -f -"]);
    expect(await pair.request(url)).toEqual({ ok: true, status: 200 });
    expect((await driver.list(target)).sort()).toEqual([client, "192.0.2.7"].sort());
    // The element carries its expiry as a native timeout, in seconds.
    const json = (await pair.runOk(pair.server.ns, "nft", ["-j", "list", "set", "inet", "postern", "allow4"])).stdout;
    const elem = JSON.parse(json).nftables.find((o: { set?: unknown }) => o.set).set.elem as {
      elem: { val: string; timeout: number };
    }[];
    const timeout = elem.find((e) => e.elem.val === client)?.elem.timeout ?? 0;
    expect(timeout).toBeGreaterThan(3_590);
    expect(timeout).toBeLessThanOrEqual(3_600);

    expect(await driver.remove(target, [client, "192.0.2.7"])).toEqual([
      { ip: client, ok: true },
      { ip: "192.0.2.7", ok: true },
    ]);
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
    expect(await driver.remove(target, [client])).toEqual([{ ip: client, ok: true }]);
  });

  it("enforces IPv6 through the v6 set", async () => {
    const now = Date.now();
    expect(await pair.request(url6)).toEqual({ ok: false, error: "timeout" });
    expect(await driver.add(target, [{ ip: pair.client.ip6, expiresAt: now + HOUR }], now)).toEqual([
      { ip: pair.client.ip6, ok: true },
    ]);
    expect(await pair.request(url6)).toEqual({ ok: true, status: 200 });
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
    await driver.remove(target, [pair.client.ip6]);
    expect(await pair.request(url6)).toEqual({ ok: false, error: "timeout" });
  });

  it("lets the kernel end access at the expiry without the agent", async () => {
    const client = pair.client.ip;
    const now = Date.now();
    await driver.add(target, [{ ip: client, expiresAt: now + 1_500 }], now);
    expect(await pair.request(url)).toEqual({ ok: true, status: 200 });
    await sleep(2_600);
    expect(await driver.list(target)).toEqual([]);
    expect(await pair.request(url)).toEqual({ ok: false, error: "timeout" });
  });

  it("names a missing set with the commands that create it, and still applies the rest", async () => {
    const now = Date.now();
    const half: Target = {
      ...target,
      acl: { nftables: { Table: "inet postern", V4SetName: "allow4", V6SetName: "nosuch6" } },
    };
    const out = await driver.add(
      half,
      [
        { ip: "192.0.2.10", expiresAt: now + HOUR },
        { ip: "2001:db8::10", expiresAt: now + HOUR },
      ],
      now,
    );
    expect(out[0]).toEqual({ ip: "192.0.2.10", ok: true });
    expect(out[1]).toEqual({
      ip: "2001:db8::10",
      ok: false,
      error:
        "nftables set inet postern nosuch6 does not exist on this agent; create it with: nft add table inet postern && nft add set inet postern nosuch6 '{ type ipv6_addr; flags timeout; }'",
    });
    await expect(driver.list(half)).rejects.toThrow(/does not exist on this agent/);
    await driver.remove(target, ["192.0.2.10"]);
  });

  it("reports nft and the sets found as its capability", async () => {
    const caps = await detectNftables({ runner, scriptsEnabled: false, isRoot: true, timeoutMs: 5_000 });
    expect(caps.nftables?.command_available).toBe(true);
    expect(caps.nftables?.sets).toEqual([
      { table: "inet postern", name: "allow4", type: "ipv4_addr", timeout: true },
      { table: "inet postern", name: "allow6", type: "ipv6_addr", timeout: true },
    ]);
  });
});
