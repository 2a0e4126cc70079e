import "reflect-metadata";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSocket } from "node:dgram";
import { KeyObject, webcrypto } from "node:crypto";
import { createServer as createTcpServer } from "node:net";
import type { Server, Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import type { AddressInfo } from "node:net";
import * as x509 from "@peculiar/x509";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { holdAuditWrite } from "../../testing/audit.ts";
import { createLogger } from "../../logger.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { AuditEntry } from "../audit.ts";
import { getSetting, setSetting } from "../settings.ts";
import { GelfForwarder, LEASE_MS } from "./forwarder.ts";
import { dialectOf } from "../../db/index.ts";
import { claimQueued } from "../../repositories/audit-outbox.ts";
import type { GelfForwarderOptions } from "./forwarder.ts";
import { GELF_MAX_BYTES, encodeGelf, gelfMessage } from "./message.ts";
import { parseGelfUrl } from "./transport.ts";
import type { AuditRow } from "../../repositories/audit.ts";

type Gelf = Record<string, unknown> & { _audit_id: number; _description?: string };

let h: Harness;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await h.close();
});

async function write(entry: Partial<AuditEntry>): Promise<void> {
  await writeAudit(h.services.db, { action: AuditAction.userLoggedIn, at: h.clock.now(), ...entry });
}
function forwarder(opts: Partial<GelfForwarderOptions> = {}): GelfForwarder {
  const f = new GelfForwarder({
    db: h.services.db,
    clock: h.clock,
    log: createLogger("silent"),
    host: "test-host",
    intervalMs: 20,
    backoffMs: { initial: 40, max: 200 },
    timeouts: { connectMs: 2000, writeMs: 2000 },
    ...opts,
  });
  cleanups.push(() => f.stop());
  return f;
}
async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const descriptions = (messages: Gelf[]) => messages.map((m) => m._description);

/** A UDP listener on loopback collecting one JSON message per datagram. */
async function udpListener() {
  const socket = createSocket("udp4");
  const messages: Gelf[] = [];
  const sizes: number[] = [];
  socket.on("message", (buf) => {
    sizes.push(buf.length);
    messages.push(JSON.parse(buf.toString("utf8")) as Gelf);
  });
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
  cleanups.push(() => new Promise<void>((r) => socket.close(() => r())));
  return { port: socket.address().port, messages, sizes };
}

/** A TCP or TLS listener on loopback splitting null-terminated frames. */
async function streamListener(
  make: () => Server = () => createTcpServer(),
  port = 0,
  event: "connection" | "secureConnection" = "connection",
) {
  const server = make();
  const messages: Gelf[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on(event, (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let pending = "";
    socket.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      let at: number;
      while ((at = pending.indexOf("\0")) >= 0) {
        messages.push(JSON.parse(pending.slice(0, at)) as Gelf);
        pending = pending.slice(at + 1);
      }
    });
  });
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  cleanups.push(async () => {
    if (server.listening) await close();
  });
  return {
    port: (server.address() as AddressInfo).port,
    messages,
    connections: () => connections,
    dropConnections: () => {
      for (const s of sockets) s.destroy();
    },
    close,
  };
}

/** A port on loopback with nothing listening (bound once, then released). */
async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A CA and a server certificate for 127.0.0.1 signed by it, made here with @peculiar/x509. */
async function makeCertificates() {
  x509.cryptoProvider.set(webcrypto as Crypto);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=Postern Test CA",
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=127.0.0.1",
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: "ip", value: "127.0.0.1" }]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const key = KeyObject.from(leafKeys.privateKey).export({ type: "pkcs8", format: "pem" }).toString();
  return { caPem: ca.toString("pem"), certPem: leaf.toString("pem"), keyPem: key };
}

const row = (over: Partial<AuditRow>): AuditRow => ({
  id: 7,
  at: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  action: "userLoggedIn",
  userName: "",
  adminName: "",
  agentName: "",
  ipAddress: "",
  errorMessage: "",
  aclDescription: "",
  description: "",
  ...over,
});

describe("GELF messages", () => {
  it("carries the entry as GELF 1.1 with additional fields and a syslog level", () => {
    expect(
      gelfMessage(
        row({
          action: "clickedToGrant",
          userName: "alice",
          aclDescription: "Intranet",
          ipAddress: "203.0.113.5",
          description: "granted",
        }),
        "gw1",
      ),
    ).toEqual({
      version: "1.1",
      host: "gw1",
      short_message: "clickedToGrant user=alice acl=Intranet ip=203.0.113.5",
      timestamp: 1767323045.678,
      level: 6,
      _application: "postern",
      _audit_id: 7,
      _action: "clickedToGrant",
      _user_name: "alice",
      _acl_description: "Intranet",
      _ip_address: "203.0.113.5",
      _description: "granted",
    });
    expect(gelfMessage(row({ action: "grantError" }), "h").level).toBe(3);
    expect(gelfMessage(row({ action: "sessionDeleted", errorMessage: "x" }), "h").level).toBe(3);
    expect(gelfMessage(row({ action: "adminLoginFailed" }), "h").level).toBe(4);
    expect(gelfMessage(row({ action: "apiKeyAccessDenied" }), "h").level).toBe(4);
    expect(gelfMessage(row({ action: "userLoggedIn", agentName: "a\r\nb" }), "h").short_message).toBe(
      "userLoggedIn agent=a b",
    );
  });

  it("stays within 8 KB by cutting the longest fields, and never holds a raw NUL", () => {
    const huge = "\u0001ü\0".repeat(5000);
    const json = encodeGelf(
      gelfMessage(
        row({
          userName: huge,
          adminName: huge,
          agentName: huge,
          ipAddress: huge,
          errorMessage: huge,
          aclDescription: huge,
          description: huge,
        }),
        "h",
      ),
    );
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(GELF_MAX_BYTES);
    expect(json).not.toContain("\0");
    const parsed = JSON.parse(json) as Record<string, unknown>;
    expect(parsed).toMatchObject({ version: "1.1", _audit_id: 7, _action: "userLoggedIn" });
    expect(String(parsed._description).endsWith("…")).toBe(true);
    const small = gelfMessage(row({ description: "short" }), "h");
    expect(JSON.parse(encodeGelf(small))).toEqual(small);
  });

  it("parses udp, tcp and tls URLs with a port and refuses anything else", () => {
    expect(parseGelfUrl("udp://graylog.example:12201")).toEqual({
      protocol: "udp",
      host: "graylog.example",
      port: 12201,
    });
    expect(parseGelfUrl(" tcp://127.0.0.1:12201 ")).toEqual({ protocol: "tcp", host: "127.0.0.1", port: 12201 });
    expect(parseGelfUrl("tls://[::1]:6514/")).toEqual({ protocol: "tls", host: "::1", port: 6514 });
    for (const bad of [
      "http://x:1",
      "udp://x",
      "udp://x:0",
      "udp://x:70000",
      "tcp://x:1/path",
      "tcp://u:p@x:1",
      "tcp://x:1?q",
      "tcp://:1",
      "not a url",
      "",
    ]) {
      expect(parseGelfUrl(bad), bad).toBeNull();
    }
  });
});

describe("GELF forwarding", () => {
  it("sends each entry as one UDP datagram, from enabling on, and stores the position", async () => {
    const udp = await udpListener();
    await write({ description: "long before enabling", at: h.clock.now() - 60_000 });
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    await write({ description: "one", userName: "alice", ipAddress: "203.0.113.5" });
    await write({ description: "two", action: AuditAction.grantError, errorMessage: "refused" });
    const f = forwarder();
    expect(await f.poll()).toBe(2);
    await waitFor(() => udp.messages.length === 2, "two datagrams");
    expect(descriptions(udp.messages).sort()).toEqual(["one", "two"]);
    const one = udp.messages.find((m) => m._description === "one")!;
    expect(one).toMatchObject({
      version: "1.1",
      host: "test-host",
      level: 6,
      _action: "userLoggedIn",
      _user_name: "alice",
      _ip_address: "203.0.113.5",
      short_message: "userLoggedIn user=alice ip=203.0.113.5",
    });
    expect(typeof one.timestamp).toBe("number");
    expect(udp.messages.find((m) => m._description === "two")).toMatchObject({ level: 3, _error_message: "refused" });
    expect(await getSetting(h.services.db, "GELFForwardedID")).toBe(Math.max(...udp.messages.map((m) => m._audit_id)));
    expect(udp.sizes.every((s) => s <= GELF_MAX_BYTES)).toBe(true);
    expect(await f.poll()).toBe(0);
  });

  it("frames messages over TCP with a null byte, in order, and never sends rolled-back entries", async () => {
    const tcp = await streamListener();
    await setSetting(h.services.db, "GELFListenerURL", `tcp://127.0.0.1:${tcp.port}`);
    await write({ description: "a" });
    await expect(
      h.services.db.transaction(async (tx) => {
        await writeAudit(tx, { action: AuditAction.aclCreated, at: h.clock.now(), description: "rolled back" });
        throw new Error("change failed");
      }),
    ).rejects.toThrow("change failed");
    for (let i = 0; i < 450; i++) await write({ description: `n${i}` });
    const f = forwarder({ batchSize: 100, maxBatchesPerPoll: 3 });
    expect(await f.poll()).toBe(300);
    expect(await f.poll()).toBe(151);
    await waitFor(() => tcp.messages.length === 451, "451 frames");
    expect(descriptions(tcp.messages)).toEqual(["a", ...Array.from({ length: 450 }, (_, i) => `n${i}`)]);
    expect(tcp.connections()).toBe(1);
  });

  it("resumes after the last forwarded entry when restarted", async () => {
    const tcp = await streamListener();
    await setSetting(h.services.db, "GELFListenerURL", `tcp://127.0.0.1:${tcp.port}`);
    await write({ description: "1" });
    await write({ description: "2" });
    const first = forwarder();
    expect(await first.poll()).toBe(2);
    await first.stop();
    await write({ description: "3" });
    await write({ description: "4" });
    const second = forwarder();
    second.start();
    await waitFor(() => tcp.messages.length === 4, "four frames");
    await new Promise((r) => setTimeout(r, 100));
    expect(descriptions(tcp.messages)).toEqual(["1", "2", "3", "4"]);
  });

  it("retries a TCP listener that is down, and reconnects after the listener drops the connection", async () => {
    const port = await freePort();
    await setSetting(h.services.db, "GELFListenerURL", `tcp://127.0.0.1:${port}`);
    await write({ description: "while down" });
    const f = forwarder();
    expect(await f.poll()).toBe(0);
    const before = await getSetting(h.services.db, "GELFForwardedID");
    expect(before).toBe(0);
    const tcp = await streamListener(undefined, port);
    f.start();
    await waitFor(() => tcp.messages.length === 1, "the entry written while down");
    expect(await getSetting(h.services.db, "GELFForwardedID")).toBe(tcp.messages[0]!._audit_id);

    tcp.dropConnections();
    await new Promise((r) => setTimeout(r, 50));
    await write({ description: "after drop" });
    await waitFor(() => tcp.messages.length === 2, "the entry written after the drop");
    expect(descriptions(tcp.messages)).toEqual(["while down", "after drop"]);
    expect(tcp.connections()).toBe(2);
  });

  it("verifies the TLS listener's certificate, trusting the CA of GELFCACertificate", async () => {
    const { caPem, certPem, keyPem } = await makeCertificates();
    const tls = await streamListener(() => createTlsServer({ cert: certPem, key: keyPem }), 0, "secureConnection");
    await setSetting(h.services.db, "GELFListenerURL", `tls://127.0.0.1:${tls.port}`);
    await write({ description: "secret" });
    const f = forwarder({ backoffMs: { initial: 1, max: 1 } });
    expect(await f.poll()).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(tls.messages).toEqual([]);

    await setSetting(h.services.db, "GELFCACertificate", caPem);
    await new Promise((r) => setTimeout(r, 5));
    expect(await f.poll()).toBe(1);
    await waitFor(() => tls.messages.length === 1, "one TLS frame");
    expect(tls.messages[0]).toMatchObject({ _description: "secret", version: "1.1" });
  });

  it("stops and forgets the position when the URL is cleared, and starts afresh when set again", async () => {
    const udp = await udpListener();
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    await write({ description: "before" });
    const f = forwarder();
    expect(await f.poll()).toBe(1);
    await setSetting(h.services.db, "GELFListenerURL", "");
    await write({ description: "while off", at: h.clock.now() - 60_000 });
    expect(await f.poll()).toBe(0);
    expect(await getSetting(h.services.db, "GELFForwardedID")).toBe(-1);
    await setSetting(h.services.db, "GELFListenerURL", "http://not-gelf:1");
    expect(await f.poll()).toBe(0);
    expect(await getSetting(h.services.db, "GELFForwardedID")).toBe(-1);
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    await write({ description: "after" });
    expect(await f.poll()).toBe(1);
    await waitFor(() => udp.messages.length === 2, "two datagrams");
    expect(descriptions(udp.messages)).toEqual(["before", "after"]);
  });

  it("sends each entry once when several replicas forward at the same time", async () => {
    const udp = await udpListener();
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    const [a, b] = [forwarder({ batchSize: 4 }), forwarder({ batchSize: 4 })];
    await Promise.all([a.poll(), b.poll()]);
    for (let i = 0; i < 30; i++) await write({ description: `entry ${i}` });
    let sent = 0;
    for (let round = 0; round < 40 && sent < 30; round++) {
      const [x, y] = await Promise.all([a.poll(), b.poll()]);
      sent += x + y;
    }
    expect(sent).toBe(30);
    await waitFor(() => udp.messages.length >= 30, "30 datagrams");
    await new Promise((r) => setTimeout(r, 50));
    expect(udp.messages.map((m) => m._audit_id).sort((x, y) => x - y)).toEqual(
      [...new Set(udp.messages.map((m) => m._audit_id))].sort((x, y) => x - y),
    );
    expect(new Set(descriptions(udp.messages)).size).toBe(30);
  });

  it("leaves the batch of a sender that died to another once its lease has run out", async () => {
    const udp = await udpListener();
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    const f = forwarder();
    expect(await f.poll()).toBe(0);
    await write({ description: "claimed by a replica that died" });
    const now = h.clock.now();
    // Another replica claims the entry and dies before sending it.
    expect(
      await h.services.db.transaction(async (tx) => await claimQueued(tx, "gelf", now, now + LEASE_MS, 10)),
    ).toHaveLength(1);
    await write({ description: "next" });
    expect(await f.poll()).toBe(0);
    h.clock.advance(LEASE_MS + 1);
    expect(await f.poll()).toBe(2);
    await waitFor(() => udp.messages.length === 2, "two datagrams");
    expect(descriptions(udp.messages)).toEqual(["claimed by a replica that died", "next"]);
  });

  it("sends an entry whose transaction commits after a later-numbered entry was sent (PostgreSQL)", async (ctx) => {
    if (dialectOf(h.services.db) !== "postgres") ctx.skip(); // SQLite writes one transaction at a time
    const udp = await udpListener();
    await setSetting(h.services.db, "GELFListenerURL", `udp://127.0.0.1:${udp.port}`);
    const f = forwarder();
    expect(await f.poll()).toBe(0);
    const first = await holdAuditWrite(h.services.db, {
      action: AuditAction.userLoggedIn,
      at: h.clock.now(),
      description: "numbered first",
    });
    await write({ description: "numbered second, committed first" });
    expect(await f.poll()).toBe(1);
    await first.commit();
    expect(await f.poll()).toBe(1);
    await waitFor(() => udp.messages.length === 2, "two datagrams");
    expect(descriptions(udp.messages)).toEqual(["numbered second, committed first", "numbered first"]);
    expect(udp.messages[1]!._audit_id).toBeLessThan(udp.messages[0]!._audit_id);
  });
});
