/**
 * Unit tests of the HAProxy backend against a tiny fake runtime API on a unix socket, which speaks the
 * prompt-mode framing of HAProxy 2.6 (each answer followed by "\n> "). Real HAProxy is covered by
 * test/backends/haproxy.real.test.ts; this file covers framing and error edge cases.
 */
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import {
  ACL_FILE_HEADER,
  AclRowReader,
  HaproxyBackend,
  PromptSplitter,
  joinAnswer,
  RuntimeSession,
  parseAclEntries,
  parseAclReferences,
  parseGetAcl,
  parseRuntimeAddress,
  patternIp,
  writeAclFileAtomically,
} from "./driver.ts";

interface FakeAcl {
  file: string | null;
  entries: string[];
}

/** A fake HAProxy runtime API. `refuse` maps an address to the error text answered to `add acl`. */
class FakeHaproxy {
  readonly acls = new Map<number, FakeAcl>();
  readonly received: string[] = [];
  readonly refuse = new Map<string, string>();
  /** Write answers one byte at a time (tests reassembly). */
  trickle = false;
  /** Never answer (tests the read timeout). */
  silent = false;
  /** Close the connection instead of answering its next command (a kept connection found dead). */
  dropOnNextCommand = false;
  /** Close the connection instead of answering a command this returns true for (after taking it). */
  dropAfter: ((line: string) => boolean) | null = null;
  /** Answer `show info` with `Stopping: 1` (an HAProxy process soft-stopping after a reload). */
  stopping = false;
  /** Connections accepted so far. */
  connections = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  readonly path: string;

  constructor(path: string) {
    this.path = path;
    this.#server = createServer((socket) => this.#serve(socket));
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.#server.listen(this.path, resolve));
  }

  /** Closes every open connection (as HAProxy's `stats timeout` or a restart would). */
  dropConnections(): void {
    for (const s of this.#sockets) s.destroy();
  }

  /** Connections open now. */
  get open(): number {
    return this.#sockets.size;
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #serve(socket: Socket): void {
    this.connections++;
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.setEncoding("utf8");
    let buffer = "";
    let prompt = false;
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        this.received.push(line);
        if (this.silent) continue;
        if (this.dropOnNextCommand) {
          this.dropOnNextCommand = false;
          socket.destroy();
          return;
        }
        if (line === "quit") {
          socket.end();
          return;
        }
        if (line === "prompt") prompt = !prompt;
        if (this.dropAfter?.(line)) {
          this.#answer(line);
          socket.destroy();
          return;
        }
        const out = line === "prompt" ? "" : this.#answer(line);
        const framed = prompt ? `${out}\n> ` : `${out}\n`;
        if (this.trickle) for (const ch of framed) socket.write(ch);
        else socket.write(framed);
        if (!prompt) {
          socket.end();
          return;
        }
      }
    });
  }

  #answer(line: string): string {
    if (line === "show info") return `Name: HAProxy\nPid: 4242\nStopping: ${this.stopping ? 1 : 0}\n`;
    if (line === "show acl") {
      return (
        "# id (file) description\n" +
        [...this.acls]
          .map(([id, a]) =>
            a.file
              ? `${id} (${a.file}) pattern loaded from file '${a.file}' used by acl at file 'h.cfg' line 11. curr_ver=0 next_ver=0 entry_cnt=${a.entries.length}`
              : `${id} () acl 'src' file 'h.cfg' line 12. curr_ver=0 next_ver=0 entry_cnt=${a.entries.length}`,
          )
          .join("\n") +
        "\n"
      );
    }
    const m = /^(show|add|del|get) acl #(\d+)(?: (.*))?$/.exec(line);
    const acl = m ? this.acls.get(Number(m[2])) : undefined;
    if (!m || !acl) return "Unknown ACL identifier. Please use #<id> or <file>.\n";
    const arg = m[3] ?? "";
    if (m[1] === "get") {
      const found = lookup(acl.entries, arg);
      return found === null
        ? "type=ip, case=sensitive, match=no\n"
        : `type=ip, case=sensitive, match=yes, idx=tree, pattern="${found}"\n`;
    }
    if (m[1] === "show")
      return acl.entries.map((e, i) => `0x55d0000${i.toString(16).padStart(4, "0")} ${e}\n`).join("");
    if (m[1] === "add") {
      const refusal = this.refuse.get(arg);
      if (refusal) return `${refusal}\n`;
      acl.entries.push(arg);
      return "";
    }
    const before = acl.entries.length;
    acl.entries = acl.entries.filter((e) => e !== arg);
    return acl.entries.length === before ? "Key not found.\n" : "";
  }
}

/**
 * `get acl` of the fake, close to HAProxy's longest-prefix match: the entry with the same text, else
 * one for the same address (normalised, also as /32 or /128), else the longest IPv4 subnet holding it.
 */
function lookup(entries: readonly string[], arg: string): string | null {
  if (entries.includes(arg)) return arg;
  const ip = patternIp(arg);
  const same = entries.find((e) => ip !== null && patternIp(e) === ip);
  if (same !== undefined) return same;
  const v4 = (a: string): number | null => {
    const p = a.split(".").map(Number);
    return p.length === 4 && p.every((n) => Number.isInteger(n) && n >= 0 && n < 256)
      ? (((p[0] ?? 0) << 24) | ((p[1] ?? 0) << 16) | ((p[2] ?? 0) << 8) | (p[3] ?? 0)) >>> 0
      : null;
  };
  const address = v4(arg);
  let best: { text: string; bits: number } | null = null;
  for (const e of entries) {
    const [net = "", bitsText] = e.split("/");
    const bits = Number(bitsText);
    const base = v4(net);
    if (address === null || base === null || bitsText === undefined || !(bits >= 0 && bits <= 32)) continue;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((address & mask) >>> 0 === (base & mask) >>> 0 && (!best || bits > best.bits)) best = { text: e, bits };
  }
  return best?.text ?? null;
}

const HOUR = 3_600_000;
const NOW = Date.now();

let dir: string;
let fake: FakeHaproxy;
let aclFile: string;

const target = (id = 0, address = join(dir, "admin.sock")): Target => ({
  key: "acl-1",
  backendId: "be-1",
  backend: { haproxy: { Protocol: "unix", Address: address } },
  acl: { haproxy: { ID: id } },
});

async function fileEntries(): Promise<string[]> {
  return (await readFile(aclFile, "utf8")).split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "postern-haproxy-unit-"));
  aclFile = join(dir, "allow.acl");
  await writeFile(aclFile, "127.0.0.9\n");
  fake = new FakeHaproxy(join(dir, "admin.sock"));
  fake.acls.set(0, { file: aclFile, entries: ["127.0.0.9"] });
  fake.acls.set(1, { file: null, entries: [] });
  await fake.listen();
});

afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("parsers", () => {
  it("parses show acl rows, with the file only for file-backed ACLs", () => {
    const text =
      "# id (file) description\n" +
      "0 (/etc/haproxy/allow (v2).acl) pattern loaded from file '/etc/haproxy/allow (v2).acl' used by acl at file '/etc/haproxy/haproxy.cfg' line 11. curr_ver=0 next_ver=0 entry_cnt=0\n" +
      "1 () acl 'src' file '/etc/haproxy/haproxy.cfg' line 12. curr_ver=0 next_ver=0 entry_cnt=1\n";
    expect(parseAclReferences(text)).toEqual([
      {
        id: 0,
        file: "/etc/haproxy/allow (v2).acl",
        description: expect.stringMatching(/^pattern loaded from file/) as unknown as string,
      },
      { id: 1, file: null, description: expect.stringMatching(/^acl 'src'/) as unknown as string },
    ]);
  });

  it("parses show acl #ID rows as stored", () => {
    expect(parseAclEntries("0x7fbd040465b0 127.0.0.7\n0x7fbd04046840 2001:DB8:0::1\n")).toEqual([
      "127.0.0.7",
      "2001:DB8:0::1",
    ]);
    expect(parseAclEntries("")).toEqual([]);
    // Blanks around rows and patterns, CRLF, and rows that are not `0x<hex> <pattern>` (skipped).
    expect(
      parseAclEntries(
        "  0x7fbd040465b0   127.0.0.8  \r\n# comment\n0x 127.0.0.1\n0X1 127.0.0.2\n0xzz 127.0.0.3\n0x1f\n0xAb 10.0.0.0/8",
      ),
    ).toEqual(["127.0.0.8", "10.0.0.0/8"]);
  });

  it("parses get acl answers as HAProxy 2.6 writes them", () => {
    expect(parseGetAcl('type=ip, case=sensitive, match=yes, idx=tree, pattern="10.0.0.0/8"')).toEqual({
      pattern: "10.0.0.0/8",
    });
    expect(parseGetAcl("type=ip, case=sensitive, match=no")).toEqual({ pattern: null });
    expect(parseGetAcl("Unknown ACL identifier. Please use #<id> or <file>.\n")).toBe(
      "Unknown ACL identifier. Please use #<id> or <file>.",
    );
  });

  it("takes /32 and /128 patterns as the address, wider subnets as no address", () => {
    expect(patternIp("10.0.0.1")).toBe("10.0.0.1");
    expect(patternIp("10.0.0.1/32")).toBe("10.0.0.1");
    expect(patternIp("2001:DB8:0::1/128")).toBe("2001:db8::1");
    expect(patternIp("10.0.0.0/8")).toBeNull();
    expect(patternIp("2001:db8::1/64")).toBeNull();
    expect(patternIp("nonsense")).toBeNull();
  });

  it("parses runtime addresses", () => {
    expect(parseRuntimeAddress({ Protocol: "unix", Address: "/run/haproxy/admin.sock" })).toEqual({
      path: "/run/haproxy/admin.sock",
    });
    expect(parseRuntimeAddress({ Protocol: "tcp", Address: "127.0.0.1:9999" })).toEqual({
      host: "127.0.0.1",
      port: 9999,
    });
    expect(parseRuntimeAddress({ Protocol: "tcp", Address: "[::1]:9999" })).toEqual({ host: "::1", port: 9999 });
    expect(() => parseRuntimeAddress({ Protocol: "tcp", Address: "localhost" })).toThrow(/host:port/);
    expect(() => parseRuntimeAddress({ Protocol: "tcp", Address: "h:70000" })).toThrow(/host:port/);
  });
});

describe("PromptSplitter", () => {
  const stream =
    "\n> " + "0x1 10.0.0.1\n0x2 10.0.0.2\n\n> " + "\n> " + "Key not found.\n\n> " + "x".repeat(300) + "\n\n> tail";
  const whole = ["", "0x1 10.0.0.1\n0x2 10.0.0.2", "", "Key not found.", "x".repeat(300)];

  it("splits at every prompt however the stream is cut into chunks, answers as their non-empty parts", () => {
    for (let size = 1; size <= 9; size++) {
      const splitter = new PromptSplitter();
      const answers: string[][] = [];
      for (let at = 0; at < stream.length; at += size) answers.push(...splitter.push(stream.slice(at, at + size)));
      expect(answers.map(joinAnswer), `chunks of ${size}`).toEqual(whole);
      expect(answers.flat().filter((part) => part === "")).toEqual([]);
    }
    const splitter = new PromptSplitter();
    expect(splitter.push(stream).map(joinAnswer)).toEqual(whole);
    expect(splitter.push(" more\n\n> ")).toEqual([["tail", " more"]]);
  });

  it("gives a long listing's rows whole when a row is cut between parts", () => {
    const rows = Array.from({ length: 500 }, (_, i) => `0x55d0000${i.toString(16)} 10.9.${i >> 8}.${i & 255}`);
    const text = rows.join("\n") + "\n\n> ";
    for (const size of [7, 37, 4096]) {
      const splitter = new PromptSplitter();
      const answers: string[][] = [];
      for (let at = 0; at < text.length; at += size) answers.push(...splitter.push(text.slice(at, at + size)));
      expect(answers).toHaveLength(1);
      expect(parseAclEntries(answers[0]!), `parts of ${size}`).toEqual(rows.map((r) => r.split(" ")[1]));
    }
  });
});

describe("PromptSplitter sink (a streamed answer)", () => {
  const rows = Array.from({ length: 300 }, (_, i) => `0x55d0000${i.toString(16)} 10.9.${i >> 8}.${i & 255}`);
  const stream = "\n> " + rows.join("\n") + "\n\n> " + "Key not found.\n\n> ";

  it("hands the answer on as it arrives, however the stream is cut (mid-row, mid-prompt), keeps none of it", () => {
    for (const size of [1, 2, 3, 5, 7, 37, 4096]) {
      const splitter = new PromptSplitter();
      expect(splitter.push(stream.slice(0, 3))).toEqual([[]]); // the `prompt` command's empty answer
      const handed: string[] = [];
      const patterns: string[] = [];
      const reader = new AclRowReader((p) => patterns.push(p));
      splitter.sink = (part) => {
        handed.push(part);
        reader.push(part);
      };
      const answers: string[][] = [];
      let pending = 0;
      for (let at = 3; at < stream.length; at += size) {
        answers.push(...splitter.push(stream.slice(at, at + size)));
        // Never more than the two characters where a prompt may begin are held back.
        if (answers.length === 0)
          pending = Math.max(pending, stream.slice(3, at + size).length - handed.join("").length);
      }
      reader.end();
      expect(pending, `chunks of ${size}`).toBeLessThanOrEqual(2);
      expect(answers.map(joinAnswer), `chunks of ${size}`).toEqual(["", "Key not found."]);
      expect(answers[0], "the streamed answer is given as no parts").toEqual([]);
      expect(handed.join("").replace(/\n+$/, ""), `chunks of ${size}`).toBe(rows.join("\n"));
      expect(patterns, `chunks of ${size}`).toEqual(rows.map((r) => r.split(" ")[1]));
      expect(splitter.sink, "the sink applies to one answer").toBeNull();
    }
  });
});

describe("RuntimeSession", () => {
  it("pairs pipelined commands with their answers even when bytes arrive one by one", async () => {
    fake.trickle = true;
    const s = await RuntimeSession.open({ path: fake.path });
    try {
      const answers = await s.send(["add acl #0 127.0.0.7", "show acl #0", "del acl #0 1.1.1.1", "show acl #7"]);
      expect(answers).toEqual([
        "",
        "0x55d00000000 127.0.0.9\n0x55d00000001 127.0.0.7",
        "Key not found.",
        "Unknown ACL identifier. Please use #<id> or <file>.",
      ]);
    } finally {
      s.close();
    }
  });

  it("fails after the read timeout when HAProxy stays silent", async () => {
    const s = await RuntimeSession.open({ path: fake.path }, { readTimeoutMs: 200 });
    fake.silent = true;
    const started = Date.now();
    await expect(s.send(["show acl"])).rejects.toThrow(/no answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    s.close();
  });

  it("fails to open a socket nobody listens on", async () => {
    await expect(RuntimeSession.open({ path: join(dir, "none.sock") })).rejects.toThrow(/runtime API .*none\.sock/);
  });

  it("refuses commands that would smuggle a second command", async () => {
    const s = await RuntimeSession.open({ path: fake.path });
    await expect(s.send(["add acl #0 1.1.1.1;clear acl #0"])).rejects.toThrow(/unsafe/);
    s.close();
  });
});

describe("HaproxyBackend", () => {
  it("adds only missing addresses, keeps the file in step, and reports HAProxy's refusal per entry", async () => {
    fake.refuse.set("192.0.2.66", "Permission denied");
    const backend = new HaproxyBackend();
    const out = await backend.add(
      target(),
      [
        { ip: "127.0.0.9", expiresAt: NOW + HOUR },
        { ip: "2001:DB8::1", expiresAt: NOW + HOUR },
        { ip: "192.0.2.66", expiresAt: NOW + HOUR },
        { ip: "bad", expiresAt: NOW + HOUR },
        { ip: "192.0.2.5", expiresAt: NOW - 1 },
      ],
      NOW,
    );
    expect(out).toEqual([
      { ip: "127.0.0.9", ok: true },
      { ip: "2001:DB8::1", ok: true },
      { ip: "192.0.2.66", ok: false, error: 'HAProxy refused "add acl #0 192.0.2.66": Permission denied' },
      { ip: "bad", ok: false, error: 'invalid IP address "bad"' },
      { ip: "192.0.2.5", ok: true },
    ]);
    expect(fake.received.filter((l) => l.startsWith("add "))).toEqual([
      "add acl #0 2001:db8::1",
      "add acl #0 192.0.2.66",
    ]);
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9", "2001:db8::1"]);
    expect(await backend.flushFiles()).toEqual([]);
    expect(await fileEntries()).toEqual(["127.0.0.9", "2001:db8::1"]);
    expect((await readFile(aclFile, "utf8")).split("\n")[0]).toBe(ACL_FILE_HEADER);
    // No temp files are left behind.
    expect((await readdir(dir)).sort()).toEqual(["admin.sock", "allow.acl"]);
  });

  it("removes every textual form of an address and treats 'Key not found' as success", async () => {
    fake.acls.set(0, {
      file: aclFile,
      entries: ["127.0.0.9", "2001:DB8:0::1", "2001:db8::1", "10.0.0.1", "2001:db8::1/128", "2001:db8::1"],
    });
    const backend = new HaproxyBackend();
    const out = await backend.remove(target(), ["2001:db8::1", "10.0.0.2"]);
    expect(out).toEqual([
      { ip: "2001:db8::1", ok: true },
      { ip: "10.0.0.2", ok: true },
    ]);
    expect(fake.received.filter((l) => l.startsWith("del "))).toEqual([
      "del acl #0 2001:db8::1",
      "del acl #0 2001:DB8:0::1",
      "del acl #0 2001:db8::1/128",
    ]);
    expect(fake.received.filter((l) => l.startsWith("show acl #"))).toEqual([]);
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9", "10.0.0.1"]);
    await backend.flushFiles();
    expect(await fileEntries()).toEqual(["127.0.0.9", "10.0.0.1"]);
  });

  it("keeps the ACL file's mode when rewriting it", async () => {
    await chmod(aclFile, 0o640);
    await new HaproxyBackend({ fileSyncDelayMs: 0 }).add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    expect((await stat(aclFile)).mode & 0o777).toBe(0o640);
  });

  it("answers once HAProxy took a change, and rewrites the file once within the delay for all of them", async () => {
    const backend = new HaproxyBackend({ fileSyncDelayMs: 150 });
    const before = await readFile(aclFile, "utf8");
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW);
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9", "192.0.2.1", "192.0.2.2"]);
    expect(await readFile(aclFile, "utf8")).toBe(before);
    const prompts = fake.received.filter((l) => l === "prompt").length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await fileEntries()).toEqual(["127.0.0.9", "192.0.2.1", "192.0.2.2"]);
    // The one rewrite for both changes, on the kept runtime API session (no new one).
    expect(fake.received.filter((l) => l.startsWith("show acl #0"))).toHaveLength(1);
    expect(fake.received.filter((l) => l === "prompt").length).toBe(prompts);
    expect(fake.connections).toBe(1);
  });

  it("settle rewrites the file of a target with a change pending at once, and does nothing without one", async () => {
    const backend = new HaproxyBackend({ fileSyncDelayMs: 60_000 });
    try {
      const before = await readFile(aclFile, "utf8");
      await backend.settle(target());
      expect(fake.received.filter((l) => l.startsWith("show acl #0"))).toEqual([]);
      await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
      expect(await readFile(aclFile, "utf8")).toBe(before);
      await backend.settle(target());
      expect(await fileEntries()).toEqual(["127.0.0.9", "192.0.2.1"]);
      await backend.settle(target());
      expect(fake.received.filter((l) => l.startsWith("show acl #0"))).toHaveLength(1);
      expect(await backend.flushFiles()).toEqual([]);
    } finally {
      await backend.close();
    }
  });

  it("reports a file that cannot be written on the entries of the next change, and at once without a delay", async () => {
    const missingDir = join(dir, "no-such-dir", "allow.acl");
    fake.acls.set(0, { file: missingDir, entries: [] });
    const backend = new HaproxyBackend();
    expect(await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW)).toEqual([
      { ip: "192.0.2.1", ok: true },
    ]);
    const [error] = await backend.flushFiles();
    expect(error).toMatch(/changed live in HAProxy but the ACL file .* could not be written/);
    const next = await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW);
    expect(next[0]).toMatchObject({ ip: "192.0.2.2", ok: false, error: expect.stringMatching(/could not be written/) });
    expect(fake.acls.get(0)?.entries).toEqual(["192.0.2.1", "192.0.2.2"]);
    const now = await new HaproxyBackend({ fileSyncDelayMs: 0 }).add(
      target(),
      [{ ip: "192.0.2.3", expiresAt: NOW + HOUR }],
      NOW,
    );
    expect(now[0]?.error).toMatch(/could not be written/);
  });

  it("needs no file for an inline ACL", async () => {
    const out = await new HaproxyBackend().add(target(1), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    expect(out).toEqual([{ ip: "192.0.2.1", ok: true }]);
    expect(fake.acls.get(1)?.entries).toEqual(["192.0.2.1"]);
  });

  it("refuses an ACL loaded from a relative path (it could not be kept in step)", async () => {
    fake.acls.set(2, { file: "allow.acl", entries: [] });
    const out = await new HaproxyBackend().add(target(2), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    expect(out[0]?.error).toMatch(/relative path "allow\.acl"/);
    expect(fake.acls.get(2)?.entries).toEqual([]);
  });

  it("reports an unknown ACL id per entry; list throws", async () => {
    const out = await new HaproxyBackend().remove(target(42), ["192.0.2.1"]);
    expect(out[0]?.error).toMatch(/HAProxy has no ACL #42 \(show acl lists #0, #1\)/);
    await expect(new HaproxyBackend().list(target(42))).rejects.toThrow(/no ACL #42/);
  });

  it("streams a listing (forEachListed) row by row when bytes arrive one by one, as list() gives it", async () => {
    const entries = Array.from({ length: 200 }, (_, i) => `10.7.${i >> 8}.${i & 255}`);
    fake.acls.set(0, { file: aclFile, entries: [...entries, "2001:DB8:0::1", "10.7.0.1/32"] });
    fake.trickle = true;
    const backend = new HaproxyBackend();
    try {
      const streamed: string[] = [];
      await backend.forEachListed(target(), (ip) => streamed.push(ip));
      expect(streamed).toEqual([...entries, "2001:db8::1", "10.7.0.1"]);
      expect(await backend.list(target())).toEqual(streamed);
      const none: string[] = [];
      await expect(backend.forEachListed(target(42), (ip) => none.push(ip))).rejects.toThrow(/no ACL #42/);
      expect(none).toEqual([]);
      // A callback that throws fails the call; the answer is still read to its end, the session goes on.
      await expect(
        backend.forEachListed(target(), () => {
          throw new Error("callback failed");
        }),
      ).rejects.toThrow(/callback failed/);
      expect(await backend.list(target())).toEqual(streamed);
      expect(fake.connections).toBe(1);
    } finally {
      await backend.close();
    }
  });

  it("lists live entries normalised, an address held in two forms twice", async () => {
    fake.acls.set(0, { file: aclFile, entries: ["127.0.0.9", "2001:DB8:0::1", "2001:db8::1"] });
    expect(await new HaproxyBackend().list(target())).toEqual(["127.0.0.9", "2001:db8::1", "2001:db8::1"]);
  });

  it("serialises concurrent calls on one ACL so the file ends with every entry", async () => {
    const backend = new HaproxyBackend();
    const ips = Array.from({ length: 10 }, (_, i) => `192.0.2.${i + 1}`);
    await Promise.all(ips.map((ip) => backend.add(target(), [{ ip, expiresAt: NOW + HOUR }], NOW)));
    await backend.flushFiles();
    expect(new Set(await fileEntries())).toEqual(new Set(["127.0.0.9", ...ips]));
  });

  it("pipelines a large batch in bounded chunks on one connection", async () => {
    const backend = new HaproxyBackend({ pipelineDepth: 100 });
    const ips = Array.from({ length: 450 }, (_, i) => `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
    const out = await backend.add(
      target(),
      ips.map((ip) => ({ ip, expiresAt: NOW + HOUR })),
      NOW,
    );
    expect(out.every((o) => o.ok)).toBe(true);
    expect(fake.received.filter((l) => l === "prompt")).toHaveLength(1);
    await backend.flushFiles();
    expect((await fileEntries()).length).toBe(451);
  });

  it("keeps one runtime API session for all calls on an address, and checks addresses without listing the ACL", async () => {
    const backend = new HaproxyBackend();
    for (let i = 1; i <= 10; i++) await backend.add(target(), [{ ip: `192.0.2.${i}`, expiresAt: NOW + HOUR }], NOW);
    await backend.add(target(1), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    await backend.remove(target(), ["192.0.2.1"]);
    expect(fake.connections).toBe(1);
    expect(fake.received.filter((l) => l === "show acl")).toHaveLength(1);
    expect(fake.received.filter((l) => l.startsWith("show acl #"))).toEqual([]);
    expect(fake.acls.get(0)?.entries).toEqual([
      "127.0.0.9",
      ...Array.from({ length: 9 }, (_, i) => `192.0.2.${i + 2}`),
    ]);
    await backend.close();
    await expect.poll(() => fake.open).toBe(0);
    expect(fake.received.at(-1)).toBe("quit");
    expect(await fileEntries()).toHaveLength(10);
  });

  it("reopens a kept connection that was closed between calls", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW)).toEqual([
      { ip: "192.0.2.2", ok: true },
    ]);
    expect(fake.connections).toBe(2);
    await backend.close();
  });

  it("repeats the first read once on a new connection when the kept one dies before answering", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.dropOnNextCommand = true;
    expect(await backend.remove(target(), ["192.0.2.1"])).toEqual([{ ip: "192.0.2.1", ok: true }]);
    expect(fake.connections).toBe(2);
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9"]);
    await backend.close();
  });

  it("never resends a change: a connection lost after the read makes the call throw", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.dropAfter = (line) => line.startsWith("add ");
    await expect(backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW)).rejects.toThrow(
      /runtime API/,
    );
    expect(fake.received.filter((l) => l === "add acl #0 192.0.2.2")).toHaveLength(1);
    fake.dropAfter = null;
    // The next call opens a new connection and finds the address present.
    expect(await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW)).toEqual([
      { ip: "192.0.2.2", ok: true },
    ]);
    expect(fake.received.filter((l) => l === "add acl #0 192.0.2.2")).toHaveLength(1);
    expect(fake.connections).toBe(2);
    await backend.close();
  });

  it("queues concurrent calls for different ACLs on one address on the one session", async () => {
    const backend = new HaproxyBackend();
    const calls = Array.from({ length: 6 }, (_, i) =>
      backend.add(target(i % 2), [{ ip: `192.0.2.${i + 1}`, expiresAt: NOW + HOUR }], NOW),
    );
    expect((await Promise.all(calls)).flat().every((o) => o.ok)).toBe(true);
    expect(fake.connections).toBe(1);
    expect(fake.acls.get(1)?.entries).toEqual(["192.0.2.2", "192.0.2.4", "192.0.2.6"]);
    await backend.close();
  });

  it("leaves a kept session whose HAProxy is stopping after a reload", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.stopping = true;
    expect(await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW)).toEqual([
      { ip: "192.0.2.2", ok: true },
    ]);
    expect(fake.connections).toBe(2);
    expect(fake.received.filter((l) => l.startsWith("add "))).toEqual(["add acl #0 192.0.2.1", "add acl #0 192.0.2.2"]);
    await backend.close();
  });

  it("adds addresses believed absent in the call's first round trip, without looking them up (AddHints)", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.received.length = 0;
    const absent = (ip: string): boolean => ip === "192.0.2.2";
    expect(
      await backend.add(
        target(),
        [
          { ip: "192.0.2.2", expiresAt: NOW + HOUR },
          { ip: "192.0.2.3", expiresAt: NOW + HOUR },
        ],
        NOW,
        { absent },
      ),
    ).toEqual([
      { ip: "192.0.2.2", ok: true },
      { ip: "192.0.2.3", ok: true },
    ]);
    // One batch: the kept session's check, the look-up of the address not believed absent, the add of
    // the one believed absent; then the add the look-up called for.
    expect(fake.received).toEqual([
      "show info",
      "get acl #0 192.0.2.3",
      "add acl #0 192.0.2.2",
      "add acl #0 192.0.2.3",
    ]);
    await backend.close();
    expect(await fileEntries()).toEqual(["127.0.0.9", "192.0.2.1", "192.0.2.2", "192.0.2.3"]);
  });

  it("a wrong belief leaves a second copy of the same text, which one remove takes away with the first", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW, { absent: () => true });
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9", "192.0.2.1", "192.0.2.1"]);
    expect(await backend.flushFiles()).toEqual([]);
    expect(await fileEntries()).toEqual(["127.0.0.9", "192.0.2.1"]);
    expect(await backend.remove(target(), ["192.0.2.1"])).toEqual([{ ip: "192.0.2.1", ok: true }]);
    expect(fake.acls.get(0)?.entries).toEqual(["127.0.0.9"]);
    await backend.close();
  });

  it("repeats adds believed absent on the new process when the kept session's HAProxy is stopping", async () => {
    const backend = new HaproxyBackend();
    await backend.add(target(), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    fake.stopping = true;
    expect(
      await backend.add(target(), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW, { absent: () => true }),
    ).toEqual([{ ip: "192.0.2.2", ok: true }]);
    expect(fake.connections).toBe(2);
    // Sent to the stopping process with its check, then again on the new connection (this fake shares
    // one table between them, so it keeps both copies; a real old process takes its copy away with it).
    expect(fake.received.filter((l) => l === "add acl #0 192.0.2.2")).toHaveLength(2);
    await backend.close();
  });

  it("closes a kept session after it was idle", async () => {
    const backend = new HaproxyBackend({ idleCloseMs: 100 });
    await backend.add(target(1), [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }], NOW);
    expect(fake.open).toBe(1);
    await expect.poll(() => fake.open, { timeout: 2_000 }).toBe(0);
    await backend.add(target(1), [{ ip: "192.0.2.2", expiresAt: NOW + HOUR }], NOW);
    expect(fake.connections).toBe(2);
    await backend.close();
  });

  it("does not take a subnet holding the address for the address", async () => {
    fake.acls.set(0, { file: aclFile, entries: ["192.0.2.0/24", "10.0.0.0/8", "10.0.0.7/32"] });
    const backend = new HaproxyBackend();
    await backend.add(
      target(),
      [
        { ip: "192.0.2.7", expiresAt: NOW + HOUR },
        { ip: "10.0.0.7", expiresAt: NOW + HOUR },
      ],
      NOW,
    );
    expect(fake.received.filter((l) => l.startsWith("add "))).toEqual(["add acl #0 192.0.2.7"]);
    expect(await backend.remove(target(), ["10.9.9.9", "192.0.2.7"])).toEqual([
      { ip: "10.9.9.9", ok: true },
      { ip: "192.0.2.7", ok: true },
    ]);
    expect(fake.received.filter((l) => l.startsWith("del "))).toEqual(["del acl #0 192.0.2.7"]);
    expect(fake.acls.get(0)?.entries).toEqual(["192.0.2.0/24", "10.0.0.0/8", "10.0.0.7/32"]);
    await backend.close();
    expect(await fileEntries()).toEqual(["192.0.2.0/24", "10.0.0.0/8", "10.0.0.7"]);
  });

  it("throws when the runtime API cannot be reached", async () => {
    await expect(
      new HaproxyBackend({ connectTimeoutMs: 300 }).add(
        target(0, join(dir, "gone.sock")),
        [{ ip: "192.0.2.1", expiresAt: NOW + HOUR }],
        NOW,
      ),
    ).rejects.toThrow(/runtime API/);
  });
});

describe("writeAclFileAtomically", () => {
  it("writes only when the content changes", async () => {
    expect(await writeAclFileAtomically(aclFile, ["10.0.0.1"])).toBe(true);
    expect(await writeAclFileAtomically(aclFile, ["10.0.0.1"])).toBe(false);
    expect(await readFile(aclFile, "utf8")).toBe(`${ACL_FILE_HEADER}\n10.0.0.1\n`);
  });
});
