import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCapabilities, detectIpsetAccess, parseIpsetSets, parseOsRelease } from "./capabilities.ts";
import { FakeRunner, missingCommand } from "./process/fake-runner.ts";

const LIST_T = `Name: allow4
Type: hash:ip
Revision: 6
Header: family inet hashsize 1024 maxelem 65536 timeout 0 bucketsize 12 initval 0x777b5c63
Size in memory: 216
References: 1
Number of entries: 0

Name: allow6
Type: hash:ip
Revision: 6
Header: family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x331a60ec
Size in memory: 224
References: 0
Number of entries: 3

Name: groups
Type: list:set
Revision: 3
Header: size 8
Size in memory: 80
References: 0
Number of entries: 0
`;

let dir: string;
let osRelease: string;
let socket: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "postern-caps-"));
  osRelease = join(dir, "os-release");
  await writeFile(
    osRelease,
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nID=debian\n',
  );
  socket = join(dir, "admin.sock");
  await writeFile(socket, "");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parsers", () => {
  it("parses os-release with quoted and unquoted values", () => {
    expect(parseOsRelease('NAME="Ubuntu"\nVERSION="24.04.1 LTS (Noble Numbat)"\nID=ubuntu\n# c\nX=\'a b\'\n')).toEqual({
      NAME: "Ubuntu",
      VERSION: "24.04.1 LTS (Noble Numbat)",
      ID: "ubuntu",
      X: "a b",
    });
  });

  it("parses ipset list -t into sets with their family, leaving out family-less sets", () => {
    expect(parseIpsetSets(LIST_T)).toEqual([
      { name: "allow4", address_family: "inet" },
      { name: "allow6", address_family: "inet6" },
    ]);
  });
});

describe("detectIpsetAccess", () => {
  it("is direct for root", async () => {
    const fake = new FakeRunner().on("ipset list -n", { stdout: "allow4\n" });
    expect(await detectIpsetAccess(fake, true)).toEqual({ available: true, access: "direct" });
  });

  it("is direct for a non-root agent with CAP_NET_ADMIN (ipset works unprivileged)", async () => {
    const fake = new FakeRunner().on("ipset list -n", { stdout: "" });
    expect(await detectIpsetAccess(fake, false)).toEqual({ available: true, access: "direct" });
    expect(fake.callsMatching(/^sudo/)).toHaveLength(0);
  });

  it("uses sudo -n when plain ipset is refused and sudo works", async () => {
    const fake = new FakeRunner()
      .on("ipset list -n", { exitCode: 1, stderr: "ipset v7.17: Kernel error received: Operation not permitted\n" })
      .on("sudo -n ipset list -n", { stdout: "" });
    expect(await detectIpsetAccess(fake, false)).toEqual({ available: true, access: "sudo" });
  });

  it("is none when sudo asks for a password or is missing, and unavailable without ipset", async () => {
    const refused = new FakeRunner()
      .on("ipset list -n", { exitCode: 1, stderr: "not permitted\n" })
      .on("sudo -n ipset list -n", { exitCode: 1, stderr: "sudo: a password is required\n" });
    expect(await detectIpsetAccess(refused, false)).toEqual({ available: true, access: "none" });
    const noSudo = new FakeRunner().on("ipset list -n", { exitCode: 1 }).on("sudo", () => missingCommand("sudo"));
    expect(await detectIpsetAccess(noSudo, false)).toEqual({ available: true, access: "none" });
    const noIpset = new FakeRunner().on("ipset", () => missingCommand("ipset"));
    expect(await detectIpsetAccess(noIpset, true)).toEqual({ available: false, access: "none" });
  });
});

describe("detectCapabilities", () => {
  it("reports os-release, ipset sets, the first existing HAProxy socket and scripts", async () => {
    const fake = new FakeRunner()
      .on("ipset list -n", { stdout: "allow4\nallow6\ngroups\n" })
      .on("ipset list -t", { stdout: LIST_T });
    const caps = await detectCapabilities({
      runner: fake,
      scriptsEnabled: true,
      isRoot: true,
      osReleasePath: osRelease,
      haproxySocketCandidates: [join(dir, "missing.sock"), socket],
    });
    expect(caps).toEqual({
      "os-release": { NAME: "Debian GNU/Linux", VERSION: "12 (bookworm)" },
      ipset: {
        ipsets: [
          { name: "allow4", address_family: "inet" },
          { name: "allow6", address_family: "inet6" },
        ],
        command_available: true,
        sudo_enabled: true,
      },
      haproxy: { socket_location: socket },
      script: { enabled: true },
    });
  });

  it("lists sets through sudo when that is how ipset is usable", async () => {
    const fake = new FakeRunner()
      .on("ipset list -n", { exitCode: 1, stderr: "not permitted\n" })
      .on("sudo -n ipset list -n", { stdout: "allow4\n" })
      .on("sudo -n ipset list -t", { stdout: LIST_T });
    const caps = await detectCapabilities({
      runner: fake,
      scriptsEnabled: false,
      isRoot: false,
      osReleasePath: osRelease,
      haproxySocketCandidates: [],
    });
    expect(caps.ipset?.sudo_enabled).toBe(true);
    expect(caps.ipset?.ipsets).toHaveLength(2);
  });

  it("reports the configured socket as given, and omits what is absent", async () => {
    const fake = new FakeRunner().on("ipset", () => missingCommand("ipset"));
    const caps = await detectCapabilities({
      runner: fake,
      scriptsEnabled: false,
      haproxySocket: "/run/custom.sock",
      osReleasePath: join(dir, "nope"),
    });
    expect(caps).toEqual({
      ipset: { ipsets: [], command_available: false, sudo_enabled: false },
      haproxy: { socket_location: "/run/custom.sock" },
      script: { enabled: false },
    });
    const none = await detectCapabilities({
      runner: fake,
      scriptsEnabled: false,
      haproxySocketCandidates: [join(dir, "missing.sock")],
      osReleasePath: osRelease,
    });
    expect("haproxy" in none).toBe(false);
  });
});

describe("detectCapabilities walks every registered driver", () => {
  it("reports nftables with its sets when nft runs, and leaves it out when nft is missing", async () => {
    const sets = JSON.stringify({
      nftables: [
        { metainfo: { version: "1.0.6" } },
        { set: { family: "inet", name: "allow4", table: "postern", type: "ipv4_addr", flags: ["timeout"] } },
      ],
    });
    const fake = new FakeRunner().on("ipset", () => missingCommand("ipset")).on("nft -j list sets", { stdout: sets });
    const caps = await detectCapabilities({
      runner: fake,
      scriptsEnabled: false,
      isRoot: true,
      osReleasePath: join(dir, "nope"),
    });
    expect(caps.nftables).toEqual({
      command_available: true,
      sets: [{ table: "inet postern", name: "allow4", type: "ipv4_addr", timeout: true }],
    });
    const without = new FakeRunner().on("ipset", () => missingCommand("ipset")).on("nft", () => missingCommand("nft"));
    expect(
      "nftables" in
        (await detectCapabilities({ runner: without, scriptsEnabled: false, osReleasePath: join(dir, "nope") })),
    ).toBe(false);
    const refused = new FakeRunner()
      .on("ipset", () => missingCommand("ipset"))
      .on("nft", { exitCode: 1, stderr: "Operation not permitted" })
      .on("sudo", { exitCode: 1, stderr: "a password is required" });
    expect(
      (
        await detectCapabilities({
          runner: refused,
          scriptsEnabled: false,
          isRoot: false,
          osReleasePath: join(dir, "nope"),
        })
      ).nftables,
    ).toEqual({
      command_available: false,
      sets: [],
    });
  });
});
