/**
 * HaproxyBackend against a real HAProxy on loopback, over both runtime API transports (unix and TCP).
 * Traffic is real: requests from 127.0.0.7 get 403 until the address is in the ACL, 200 after.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { ACL_FILE_HEADER, HaproxyBackend } from "../../agent/src/backends/haproxy/driver.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import { httpGetFrom, startHaproxy } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";

const haveHaproxy = await new ExecaRunner()
  .run("haproxy", ["-v"], { timeoutMs: 5_000 })
  .then((r) => r.exitCode === 0)
  .catch(() => false);
if (!haveHaproxy) console.warn("haproxy.real.test: SKIPPED: the haproxy command is not installed");

const HOUR = 3_600_000;

async function fileEntries(file: string): Promise<string[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

for (const protocol of ["unix", "tcp"] as const) {
  describe.skipIf(!haveHaproxy)(`HaproxyBackend on a real HAProxy (${protocol} runtime API)`, () => {
    let hx: HaproxyInstance;
    let target: Target;
    let url: string;
    const backend = new HaproxyBackend({ connectTimeoutMs: 2_000, readTimeoutMs: 5_000 });

    beforeAll(async () => {
      hx = await startHaproxy({ initialEntries: ["127.0.0.9"] });
      url = `http://127.0.0.1:${hx.frontendPort}/`;
      target = {
        key: `acl-${protocol}`,
        backendId: `backend-${protocol}`,
        backend: { haproxy: { Protocol: protocol, Address: protocol === "unix" ? hx.socketPath : hx.tcpAddress } },
        acl: { haproxy: { ID: hx.aclId } },
      };
    });
    afterAll(async () => {
      await hx?.stop();
    });

    it("refuses before add, allows after add, refuses after remove, and keeps the ACL file in step", async () => {
      const now = Date.now();
      expect(await httpGetFrom("127.0.0.7", url)).toBe(403);
      expect(await httpGetFrom("127.0.0.9", url)).toBe(200); // loaded from the file at start

      const added = await backend.add(target, [{ ip: "127.0.0.7", expiresAt: now + HOUR }], now);
      expect(added).toEqual([{ ip: "127.0.0.7", ok: true }]);
      expect(await httpGetFrom("127.0.0.7", url)).toBe(200);
      expect(await httpGetFrom("127.0.0.8", url)).toBe(403);
      expect(new Set(await backend.list(target))).toEqual(new Set(["127.0.0.9", "127.0.0.7"]));
      await backend.flushFiles();
      expect(new Set(await fileEntries(hx.aclFile))).toEqual(new Set(["127.0.0.9", "127.0.0.7"]));
      expect((await readFile(hx.aclFile, "utf8")).startsWith(ACL_FILE_HEADER)).toBe(true);

      // Idempotent: adding again keeps a single copy in HAProxy.
      expect(await backend.add(target, [{ ip: "127.0.0.7", expiresAt: now + HOUR }], now)).toEqual([
        { ip: "127.0.0.7", ok: true },
      ]);
      const raw = await hx.command(`show acl #${hx.aclId}`);
      expect(raw.split("\n").filter((l) => / 127\.0\.0\.7$/.test(l.trim()))).toHaveLength(1);

      const removed = await backend.remove(target, ["127.0.0.7"]);
      expect(removed).toEqual([{ ip: "127.0.0.7", ok: true }]);
      expect(await httpGetFrom("127.0.0.7", url)).toBe(403);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
      await backend.flushFiles();
      expect(await fileEntries(hx.aclFile)).toEqual(["127.0.0.9"]);

      // Removing an absent address succeeds.
      expect(await backend.remove(target, ["127.0.0.7"])).toEqual([{ ip: "127.0.0.7", ok: true }]);
    });

    it("keeps an added entry across an HAProxy reload (the file is in step)", async () => {
      const now = Date.now();
      expect(await backend.add(target, [{ ip: "127.0.0.10", expiresAt: now + HOUR }], now)).toEqual([
        { ip: "127.0.0.10", ok: true },
      ]);
      expect(await httpGetFrom("127.0.0.10", url)).toBe(200);
      const before = await hx.workerPid();
      await backend.flushFiles();
      await hx.reload();
      expect(await hx.workerPid()).not.toBe(before);
      expect(await httpGetFrom("127.0.0.10", url)).toBe(200);
      expect(await httpGetFrom("127.0.0.7", url)).toBe(403);
      expect(new Set(await backend.list(target))).toEqual(new Set(["127.0.0.9", "127.0.0.10"]));

      // And a removal also survives a reload.
      expect(await backend.remove(target, ["127.0.0.10"])).toEqual([{ ip: "127.0.0.10", ok: true }]);
      await backend.flushFiles();
      await hx.reload();
      expect(await httpGetFrom("127.0.0.10", url)).toBe(403);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
    });

    it("after a reload, changes reach the new worker, not the stopping one behind the kept session", async () => {
      const now = Date.now();
      expect(await backend.add(target, [{ ip: "127.0.0.12", expiresAt: now + HOUR }], now)).toEqual([
        { ip: "127.0.0.12", ok: true },
      ]);
      await backend.flushFiles();
      await hx.reload();
      expect(await backend.add(target, [{ ip: "127.0.0.13", expiresAt: now + HOUR }], now)).toEqual([
        { ip: "127.0.0.13", ok: true },
      ]);
      expect(await httpGetFrom("127.0.0.13", url)).toBe(200);
      expect(await backend.remove(target, ["127.0.0.12", "127.0.0.13"])).toHaveLength(2);
      expect(await httpGetFrom("127.0.0.12", url)).toBe(403);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
    });

    it("adds an address believed absent at once; a wrong belief leaves two copies, one remove takes both", async () => {
      const now = Date.now();
      const absent = { absent: () => true };
      expect(await backend.add(target, [{ ip: "127.0.0.6", expiresAt: now + HOUR }], now, absent)).toEqual([
        { ip: "127.0.0.6", ok: true },
      ]);
      expect(await httpGetFrom("127.0.0.6", url)).toBe(200);
      // Believed absent though present: HAProxy stores the text twice.
      await backend.add(target, [{ ip: "127.0.0.6", expiresAt: now + HOUR }], now, absent);
      const copies = (await hx.command(`show acl #${hx.aclId}`)).split("\n").filter((l) => / 127\.0\.0\.6$/.test(l));
      expect(copies).toHaveLength(2);
      await backend.flushFiles();
      expect((await fileEntries(hx.aclFile)).filter((e) => e === "127.0.0.6")).toHaveLength(1);
      expect(await backend.remove(target, ["127.0.0.6"])).toEqual([{ ip: "127.0.0.6", ok: true }]);
      expect(await hx.command(`show acl #${hx.aclId}`)).not.toMatch(/ 127\.0\.0\.6$/m);
      expect(await httpGetFrom("127.0.0.6", url)).toBe(403);
      await backend.flushFiles();
      expect(await fileEntries(hx.aclFile)).not.toContain("127.0.0.6");
    });

    it("does not take a subnet in the ACL for the address, and removes every textual form", async () => {
      const now = Date.now();
      await hx.command(`add acl #${hx.aclId} 127.0.1.0/24`);
      await hx.command(`add acl #${hx.aclId} 127.0.2.5/32`);
      await hx.command(`add acl #${hx.aclId} 127.0.2.5`);
      expect(await backend.add(target, [{ ip: "127.0.1.5", expiresAt: now + HOUR }], now)).toEqual([
        { ip: "127.0.1.5", ok: true },
      ]);
      expect(new Set(await backend.list(target))).toEqual(
        new Set(["127.0.0.9", "127.0.1.0/24", "127.0.2.5", "127.0.1.5"]),
      );
      expect(await backend.remove(target, ["127.0.1.5", "127.0.2.5"])).toHaveLength(2);
      expect(await hx.command(`show acl #${hx.aclId}`)).not.toMatch(/127\.0\.(1\.5|2\.5)/);
      await hx.command(`del acl #${hx.aclId} 127.0.1.0/24`);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
    });

    it("gives a per-entry error for a bad address while the others succeed", async () => {
      const now = Date.now();
      const out = await backend.add(
        target,
        [
          { ip: "127.0.0.11", expiresAt: now + HOUR },
          { ip: "not-an-ip", expiresAt: now + HOUR },
          { ip: "2001:DB8:0::1", expiresAt: now + HOUR },
          { ip: "127.0.0.12", expiresAt: now - 1 }, // already expired: nothing to do
        ],
        now,
      );
      expect(out.map((o) => [o.ip, o.ok])).toEqual([
        ["127.0.0.11", true],
        ["not-an-ip", false],
        ["2001:DB8:0::1", true],
        ["127.0.0.12", true],
      ]);
      expect(out[1]?.error).toMatch(/invalid IP address/);
      expect(await httpGetFrom("127.0.0.11", url)).toBe(200);
      expect(await httpGetFrom("127.0.0.12", url)).toBe(403);
      expect(new Set(await backend.list(target))).toEqual(new Set(["127.0.0.9", "127.0.0.11", "2001:db8::1"]));
      await backend.flushFiles();
      expect(new Set(await fileEntries(hx.aclFile))).toEqual(new Set(["127.0.0.9", "127.0.0.11", "2001:db8::1"]));

      // An address HAProxy itself holds in another textual form is still found and removed.
      expect(await hx.command(`add acl #${hx.aclId} 2001:0db8::0002`)).toBe("\n");
      const rm = await backend.remove(target, ["127.0.0.11", "2001:db8::2", "2001:db8::1", "bogus"]);
      expect(rm.map((o) => o.ok)).toEqual([true, true, true, false]);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
      await backend.flushFiles();
      expect(await fileEntries(hx.aclFile)).toEqual(["127.0.0.9"]);
    });

    it("reports an unknown ACL id per entry and lists it as an error", async () => {
      const wrong: Target = { ...target, acl: { haproxy: { ID: 9999 } } };
      const out = await backend.add(wrong, [{ ip: "127.0.0.13", expiresAt: Date.now() + HOUR }], Date.now());
      expect(out[0]?.ok).toBe(false);
      expect(out[0]?.error).toMatch(/no ACL #9999/);
      await expect(backend.list(wrong)).rejects.toThrow(/no ACL #9999/);
    });

    it("handles a batch of 2,000 addresses in one call", async () => {
      const now = Date.now();
      const ips = Array.from({ length: 2_000 }, (_, i) => `10.99.${Math.floor(i / 250)}.${(i % 250) + 1}`);
      const out = await backend.add(
        target,
        ips.map((ip) => ({ ip, expiresAt: now + HOUR })),
        now,
      );
      expect(out.every((o) => o.ok)).toBe(true);
      const listed = await backend.list(target);
      expect(listed).toHaveLength(2_001);
      await backend.flushFiles();
      expect((await fileEntries(hx.aclFile)).length).toBe(2_001);
      const rm = await backend.remove(target, ips);
      expect(rm.every((o) => o.ok)).toBe(true);
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
    });

    it("streams a long listing (forEachListed) across the answer's chunks, rows cut mid-line put together", async () => {
      const now = Date.now();
      // ~5,000 rows of ~30 bytes: HAProxy writes the 150 kB answer in many buffers, cut anywhere.
      const ips = Array.from({ length: 5_000 }, (_, i) => `10.98.${Math.floor(i / 250)}.${(i % 250) + 1}`);
      const out = await backend.add(
        target,
        ips.map((ip) => ({ ip, expiresAt: now + HOUR })),
        now,
      );
      expect(out.every((o) => o.ok)).toBe(true);
      try {
        const streamed: string[] = [];
        await backend.forEachListed(target, (ip) => streamed.push(ip));
        expect(streamed).toHaveLength(5_001);
        expect(new Set(streamed)).toEqual(new Set(["127.0.0.9", ...ips]));
        expect(await backend.list(target)).toEqual(streamed);
        const wrong: Target = { ...target, acl: { haproxy: { ID: 9999 } } };
        const none: string[] = [];
        await expect(backend.forEachListed(wrong, (ip) => none.push(ip))).rejects.toThrow(/no ACL #9999/);
        expect(none).toEqual([]);
      } finally {
        expect((await backend.remove(target, ips)).every((o) => o.ok)).toBe(true);
      }
      expect(await backend.list(target)).toEqual(["127.0.0.9"]);
    });
  });
}

describe.skipIf(!haveHaproxy)("HaproxyBackend when HAProxy is unreachable", () => {
  it("throws for the whole call (connection refused)", async () => {
    const backend = new HaproxyBackend({ connectTimeoutMs: 500 });
    const target: Target = {
      key: "k",
      backendId: "b",
      backend: { haproxy: { Protocol: "unix", Address: `/tmp/postern-no-such-${process.pid}.sock` } },
      acl: { haproxy: { ID: 0 } },
    };
    await expect(backend.add(target, [{ ip: "127.0.0.7", expiresAt: Date.now() + HOUR }], Date.now())).rejects.toThrow(
      /runtime API/,
    );
  });
});
