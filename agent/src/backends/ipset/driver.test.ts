import { describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { FakeRunner, missingCommand } from "../../process/fake-runner.ts";
import { IpsetSaveReader } from "./listing.ts";
import type { RecordedCall } from "../../process/fake-runner.ts";
import {
  IPSET_MAX_TIMEOUT_SECONDS,
  IpsetBackend,
  ipsetTimeoutSeconds,
  missingSetMessage,
  parseIpsetHeader,
  parseIpsetSave,
} from "./driver.ts";

const target = (v4 = "allow4", v6 = "allow6"): Target => ({
  key: "acl-1",
  backendId: "be-1",
  backend: { ipset: {} },
  acl: { ipset: { V4SetName: v4, V6SetName: v6 } },
});

const header = (name: string, family: "inet" | "inet6", timeout: boolean): string =>
  `Name: ${name}\nType: hash:ip\nRevision: 6\nHeader: family ${family} hashsize 1024 maxelem 65536${timeout ? " timeout 0" : ""} bucketsize 12 initval 0x1\nSize in memory: 216\nReferences: 0\nNumber of entries: 0\n`;

const NOW = 1_750_000_000_000;

/** Answers `ipset list -t` from a table of sets; records restore inputs. */
function ipsetFake(
  sets: Record<string, { family: "inet" | "inet6"; timeout: boolean }>,
  restore?: (input: string, call: RecordedCall) => { exitCode?: number; stderr?: string },
): FakeRunner {
  return new FakeRunner()
    .on(/^ipset list -t \S+$/, (c) => {
      const name = c.args[2] ?? "";
      const s = sets[name];
      if (!s) return { exitCode: 1, stderr: "ipset v7.17: The set with the given name does not exist\n" };
      return { stdout: header(name, s.family, s.timeout) };
    })
    .on("ipset restore -exist", (c) => restore?.(c.options.input ?? "", c) ?? {});
}

const restoreInputs = (f: FakeRunner): string[] =>
  f.callsMatching("ipset restore -exist").map((c) => c.options.input ?? "");

describe("ipsetTimeoutSeconds", () => {
  it("rounds the remaining milliseconds up to whole seconds, at least 1, at most the ipset maximum", () => {
    expect(ipsetTimeoutSeconds(NOW + 1_000, NOW)).toBe(1);
    expect(ipsetTimeoutSeconds(NOW + 1_001, NOW)).toBe(2);
    expect(ipsetTimeoutSeconds(NOW + 1, NOW)).toBe(1);
    expect(ipsetTimeoutSeconds(NOW + 3_600_000, NOW)).toBe(3_600);
    expect(ipsetTimeoutSeconds(NOW + 365 * 86_400_000, NOW)).toBe(IPSET_MAX_TIMEOUT_SECONDS);
  });
});

describe("parsers", () => {
  it("reads family and timeout support from the header", () => {
    expect(parseIpsetHeader(header("a", "inet", true))).toEqual({ family: "inet", timeout: true });
    expect(parseIpsetHeader(header("a", "inet6", false))).toEqual({ family: "inet6", timeout: false });
  });
  it("reads members from save output, normalised", () => {
    const text =
      "create s hash:ip family inet6 hashsize 1024 maxelem 65536 timeout 0\nadd s 2001:DB8:0::1 timeout 57\nadd s ::ffff:10.0.0.1\nadd s 10.0.0.0/24\n";
    expect(parseIpsetSave(text)).toEqual(["2001:db8::1", "10.0.0.1", "10.0.0.0/24"]);
  });
});

describe("IpsetBackend.add", () => {
  it("routes by family into one restore with native timeouts, skips expired entries and reports bad ones", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true }, allow6: { family: "inet6", timeout: true } });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target(),
      [
        { ip: "192.0.2.1", expiresAt: NOW + 90_500 },
        { ip: "2001:DB8::1", expiresAt: NOW + 10_000 },
        { ip: "192.0.2.2", expiresAt: NOW },
        { ip: "nope", expiresAt: NOW + 1_000 },
        { ip: "192.0.2.1", expiresAt: NOW + 120_000 },
      ],
      NOW,
    );
    expect(out).toEqual([
      { ip: "192.0.2.1", ok: true },
      { ip: "2001:DB8::1", ok: true },
      { ip: "192.0.2.2", ok: true },
      { ip: "nope", ok: false, error: 'invalid IP address "nope"' },
      { ip: "192.0.2.1", ok: true },
    ]);
    // One restore; the duplicate keeps the later expiry.
    expect(restoreInputs(fake)).toEqual(["add allow4 192.0.2.1 timeout 120\nadd allow6 2001:db8::1 timeout 10\n"]);
  });

  it("adds without timeout to a set created without timeout support, and caches the header", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: false } });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    await backend.add(target("allow4", ""), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW);
    await backend.add(target("allow4", ""), [{ ip: "192.0.2.2", expiresAt: NOW + 5_000 }], NOW);
    expect(restoreInputs(fake)).toEqual(["add allow4 192.0.2.1\n", "add allow4 192.0.2.2\n"]);
    expect(fake.callsMatching(/^ipset list -t/)).toHaveLength(1);
  });

  it("errors an address whose family has no set name", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true } });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(target("allow4", ""), [{ ip: "2001:db8::9", expiresAt: NOW + 5_000 }], NOW);
    expect(out[0]?.ok).toBe(false);
    expect(out[0]?.error).toMatch(/no IPv6 set/);
    expect(restoreInputs(fake)).toEqual([]);
  });

  it("names a missing set with the command that creates it, without caching the miss", async () => {
    const sets: Record<string, { family: "inet" | "inet6"; timeout: boolean }> = {};
    const fake = ipsetFake(sets);
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(target("allow4", ""), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW);
    expect(out).toEqual([
      {
        ip: "192.0.2.1",
        ok: false,
        error:
          "ipset set allow4 does not exist on this agent; create it with: ipset create allow4 hash:ip family inet timeout 0",
      },
    ]);
    sets.allow4 = { family: "inet", timeout: true };
    expect((await backend.add(target("allow4", ""), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW))[0]?.ok).toBe(
      true,
    );
  });

  it("refuses addresses of the wrong family for the set", async () => {
    const fake = ipsetFake({ both: { family: "inet", timeout: true } });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target("both", "both"),
      [
        { ip: "192.0.2.1", expiresAt: NOW + 5_000 },
        { ip: "2001:db8::1", expiresAt: NOW + 5_000 },
      ],
      NOW,
    );
    expect(out.map((o) => o.ok)).toEqual([true, false]);
    expect(out[1]?.error).toMatch(/family inet; it cannot hold IPv6/);
  });

  it("narrows a failed batch down to the line ipset names and applies the rest", async () => {
    // Refuses 192.0.2.2 wherever it appears, the way the kernel refuses one element.
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true } }, (input) => {
      const lines = input.trimEnd().split("\n");
      const bad = lines.findIndex((l) => l.includes(" 192.0.2.2 "));
      return bad >= 0
        ? { exitCode: 1, stderr: `ipset v7.17: Error in line ${bad + 1}: Kernel error received: Invalid argument\n` }
        : {};
    });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target(),
      ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((ip) => ({ ip, expiresAt: NOW + 5_000 })),
      NOW,
    );
    expect(out.map((o) => o.ok)).toEqual([true, false, true]);
    expect(out[1]?.error).toBe("ipset refused 192.0.2.2 for set allow4: Kernel error received: Invalid argument");
    // The retry re-sends every other line (lines before the failure may not have been committed).
    expect(restoreInputs(fake)).toEqual([
      "add allow4 192.0.2.1 timeout 5\nadd allow4 192.0.2.2 timeout 5\nadd allow4 192.0.2.3 timeout 5\n",
      "add allow4 192.0.2.1 timeout 5\nadd allow4 192.0.2.3 timeout 5\n",
    ]);
  });

  it("marks every line of a set that vanished since its header was cached", async () => {
    const sets: Record<string, { family: "inet" | "inet6"; timeout: boolean }> = {
      allow4: { family: "inet", timeout: true },
      allow6: { family: "inet6", timeout: true },
    };
    const fake = ipsetFake(sets, (input) => {
      const lines = input.trimEnd().split("\n");
      const bad = lines.findIndex((l) => l.startsWith("add allow4 "));
      return bad >= 0
        ? { exitCode: 1, stderr: `ipset v7.17: Error in line ${bad + 1}: The set with the given name does not exist\n` }
        : {};
    });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target(),
      ["192.0.2.1", "2001:db8::1", "192.0.2.3"].map((ip) => ({ ip, expiresAt: NOW + 5_000 })),
      NOW,
    );
    expect(out.map((o) => o.ok)).toEqual([false, true, false]);
    expect(out[0]?.error).toBe(missingSetMessage("allow4", "inet"));
    expect(fake.callsMatching("ipset restore -exist")).toHaveLength(2);
  });

  it("retries without timeouts when the set turns out to have no timeout support", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true } }, (input) =>
      input.includes("timeout")
        ? {
            exitCode: 1,
            stderr: "ipset v7.17: Error in line 1: Timeout cannot be used: set was created without timeout support\n",
          }
        : {},
    );
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW);
    expect(out).toEqual([{ ip: "192.0.2.1", ok: true }]);
    expect(restoreInputs(fake)).toEqual(["add allow4 192.0.2.1 timeout 5\n", "add allow4 192.0.2.1\n"]);
  });

  it("gives a failure of the whole command (no line named) to every entry after one probe", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true } }, () => ({
      exitCode: 1,
      stderr: "ipset v7.17: Kernel error received: Operation not permitted\n",
    }));
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target(),
      ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((ip) => ({ ip, expiresAt: NOW + 5_000 })),
      NOW,
    );
    expect(
      out.every((o) => !o.ok && o.error === "ipset restore failed: Kernel error received: Operation not permitted"),
    ).toBe(true);
    expect(fake.callsMatching("ipset restore -exist")).toHaveLength(2);
  });

  it("falls back to one line per restore when the batch failed without naming a line but lines work alone", async () => {
    const fake = ipsetFake({ allow4: { family: "inet", timeout: true } }, (input) => {
      const lines = input.trimEnd().split("\n");
      if (lines.length > 1) return { exitCode: 124, stderr: "ipset: timed out after 30000 ms\n" };
      return lines[0]?.includes("192.0.2.2") ? { exitCode: 1, stderr: "ipset v7.17: Something odd\n" } : {};
    });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.add(
      target(),
      ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((ip) => ({ ip, expiresAt: NOW + 5_000 })),
      NOW,
    );
    expect(out.map((o) => o.ok)).toEqual([true, false, true]);
    expect(out[1]?.error).toBe("ipset refused 192.0.2.2 for set allow4: Something odd");
    expect(fake.callsMatching("ipset restore -exist")).toHaveLength(4);
  });

  it("prefixes every command with sudo -n when useSudo is set", async () => {
    const fake = new FakeRunner()
      .on("sudo -n ipset list -t allow4", { stdout: header("allow4", "inet", true) })
      .on("sudo -n ipset restore -exist", {});
    const backend = new IpsetBackend({ runner: fake, useSudo: true });
    expect(await backend.add(target("allow4", ""), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW)).toEqual([
      { ip: "192.0.2.1", ok: true },
    ]);
    expect(fake.calls.map((c) => c.command)).toEqual(["sudo", "sudo"]);
  });

  it("throws when ipset cannot be run at all", async () => {
    const fake = new FakeRunner().on(
      () => true,
      () => missingCommand("ipset"),
    );
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    await expect(backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW)).rejects.toThrow(/ENOENT/);
  });
});

describe("IpsetBackend.remove", () => {
  it("deletes through one restore, per family, de-duplicated", async () => {
    const fake = ipsetFake({});
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.remove(target(), ["192.0.2.1", "2001:DB8::1", "::ffff:192.0.2.1", "x"]);
    expect(out.map((o) => o.ok)).toEqual([true, true, true, false]);
    expect(out[2]?.ip).toBe("::ffff:192.0.2.1");
    expect(restoreInputs(fake)).toEqual(["del allow4 192.0.2.1\ndel allow6 2001:db8::1\n"]);
  });

  it("reports a missing set clearly", async () => {
    const fake = ipsetFake({}, () => ({
      exitCode: 1,
      stderr: "ipset v7.17: Error in line 1: The set with the given name does not exist\n",
    }));
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const out = await backend.remove(target("gone4", ""), ["192.0.2.1"]);
    expect(out).toEqual([{ ip: "192.0.2.1", ok: false, error: missingSetMessage("gone4", "inet") }]);
  });
});

describe("IpsetBackend.list", () => {
  it("lists both sets, normalised", async () => {
    const fake = new FakeRunner()
      .on("ipset list allow4 -output save", {
        stdout:
          "create allow4 hash:ip family inet timeout 0\nadd allow4 192.0.2.1 timeout 30\nadd allow4 192.0.2.2 timeout 9\n",
      })
      .on("ipset list allow6 -output save", {
        stdout: "create allow6 hash:ip family inet6 timeout 0\nadd allow6 2001:db8:0:0::1 timeout 30\n",
      });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    expect(await backend.list(target())).toEqual(["192.0.2.1", "192.0.2.2", "2001:db8::1"]);
  });

  it("throws the clear message for a missing set", async () => {
    const fake = new FakeRunner().on(/^ipset list/, {
      exitCode: 1,
      stderr: "ipset v7.17: The set with the given name does not exist\n",
    });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    await expect(backend.list(target("", "gone6"))).rejects.toThrow(missingSetMessage("gone6", "inet6"));
  });
});

describe("set names", () => {
  it("refuses a set name that could inject restore lines", async () => {
    const fake = ipsetFake({});
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const evil = target("a\nflush b", "");
    const out = await backend.add(evil, [{ ip: "192.0.2.1", expiresAt: NOW + 5_000 }], NOW);
    expect(out[0]?.error).toMatch(/invalid ipset set name/);
    expect((await backend.remove(evil, ["192.0.2.1"]))[0]?.error).toMatch(/invalid ipset set name/);
    await expect(backend.list(evil)).rejects.toThrow(/invalid ipset set name/);
    expect(fake.calls).toHaveLength(0);
  });
});

describe("IpsetSaveReader (a listing read as it arrives)", () => {
  const members = Array.from({ length: 300 }, (_, i) => `10.8.${i >> 8}.${i & 255}`);
  const output =
    "create s4 hash:ip family inet hashsize 1024 maxelem 65536 timeout 0\n" +
    members.map((ip, i) => `add s4 ${ip} timeout ${1000 + i}`).join("\n") +
    "\nadd s4 ::ffff:10.9.0.1\nadd s6 2001:DB8:0::1 timeout 5";

  it("reports every member however the output is cut into chunks (mid-line, last line without newline)", () => {
    for (const size of [1, 2, 3, 7, 37, 4096]) {
      const got: string[] = [];
      const reader = new IpsetSaveReader((m) => got.push(m));
      for (let at = 0; at < output.length; at += size) reader.push(output.slice(at, at + size));
      reader.end();
      expect(got, `chunks of ${size}`).toEqual([...members, "10.9.0.1", "2001:db8::1"]);
    }
    expect(parseIpsetSave(output)).toEqual([...members, "10.9.0.1", "2001:db8::1"]);
  });

  it("lists through the streaming form without a spawning runner (the whole output, read the same way)", async () => {
    const fake = new FakeRunner().on("ipset list allow4 -output save", {
      stdout: "create allow4 hash:ip family inet\nadd allow4 192.0.2.1\nadd allow4 192.0.2.2 timeout 9\n",
    });
    const backend = new IpsetBackend({ runner: fake, useSudo: false });
    const got: string[] = [];
    await backend.forEachListed(target("allow4", ""), (ip) => got.push(ip));
    expect(got).toEqual(["192.0.2.1", "192.0.2.2"]);
  });
});
