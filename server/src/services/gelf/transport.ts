/**
 * Sending GELF messages to the listener named by GELFListenerURL (docs/reference.md admin-console §3, §5 "URL must be
 * udp, tcp, or tls"): `udp://host:port` one datagram per message; `tcp://host:port` and
 * `tls://host:port` a long-lived connection carrying null-byte-terminated frames. TLS verifies the
 * listener's certificate and name against the system store plus an optional extra CA (PEM).
 */
import { createSocket } from "node:dgram";
import type { Socket as UdpSocket } from "node:dgram";
import { lookup } from "node:dns/promises";
import { connect as tcpConnect, isIP } from "node:net";
import type { Socket } from "node:net";
import { connect as tlsConnect, rootCertificates } from "node:tls";

/** Where the messages go. `host` is a name or an IP address (IPv6 without brackets). */
export interface GelfTarget {
  protocol: "udp" | "tcp" | "tls";
  host: string;
  port: number;
}

/**
 * Parses a GELF listener URL: scheme udp, tcp or tls, a host, an explicit port 1–65535, and nothing
 * else (no credentials, path, query or fragment). Returns null when the URL is not one.
 */
export function parseGelfUrl(url: string): GelfTarget | null {
  const u = URL.parse(url.trim());
  if (!u) return null;
  const protocol = u.protocol.slice(0, -1);
  if (protocol !== "udp" && protocol !== "tcp" && protocol !== "tls") return null;
  if (u.username || u.password || (u.pathname !== "" && u.pathname !== "/") || u.search || u.hash) return null;
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = Number(u.port);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { protocol, host, port };
}

/** Timeouts of a transport, in milliseconds. */
export interface TransportTimeouts {
  /** Connecting (TCP handshake, TLS handshake, name lookup). */
  connectMs: number;
  /** Handing one batch to the operating system. */
  writeMs: number;
}

/** An open transport. `send` rejects when the messages could not be handed over; the transport is then unusable. */
export interface GelfTransport {
  /** Sends the encoded messages (JSON texts) in order; resolves once the OS has taken them all. */
  send(messages: readonly string[]): Promise<void>;
  /** False once the connection broke or was closed. */
  readonly usable: boolean;
  /** Closes the transport (idempotent). */
  close(): void;
}

/** Runs `work` with a deadline: rejects with `what timed out` after `ms`. */
function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} timed out after ${ms} ms`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

class UdpTransport implements GelfTransport {
  private readonly socket: UdpSocket;
  private readonly address: string;
  private readonly port: number;
  private readonly timeouts: TransportTimeouts;
  private failed: Error | null = null;
  private closed = false;
  constructor(socket: UdpSocket, address: string, port: number, timeouts: TransportTimeouts) {
    this.socket = socket;
    this.address = address;
    this.port = port;
    this.timeouts = timeouts;
    socket.on("error", (err) => {
      this.failed = err;
    });
  }
  get usable(): boolean {
    return !this.closed && this.failed === null;
  }
  async send(messages: readonly string[]): Promise<void> {
    if (!this.usable) throw this.failed ?? new Error("transport closed");
    const all = Promise.all(
      messages.map(
        (m) =>
          new Promise<void>((resolve, reject) => {
            this.socket.send(Buffer.from(m, "utf8"), this.port, this.address, (err) => (err ? reject(err) : resolve()));
          }),
      ),
    );
    await withTimeout(all, this.timeouts.writeMs, "GELF UDP send", () => this.close());
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

class StreamTransport implements GelfTransport {
  private readonly socket: Socket;
  private readonly timeouts: TransportTimeouts;
  private broken: Error | null = null;
  constructor(socket: Socket, timeouts: TransportTimeouts) {
    this.socket = socket;
    this.timeouts = timeouts;
    socket.on("error", (err) => {
      this.broken ??= err;
    });
    // The listener closing its side means it will not read what we write next.
    socket.on("end", () => {
      this.broken ??= new Error("GELF listener closed the connection");
      socket.destroy();
    });
    socket.on("close", () => {
      this.broken ??= new Error("GELF connection closed");
    });
  }
  get usable(): boolean {
    return this.broken === null && !this.socket.destroyed;
  }
  async send(messages: readonly string[]): Promise<void> {
    if (!this.usable) throw this.broken ?? new Error("GELF connection closed");
    const socket = this.socket;
    const work = (async () => {
      const written: Promise<void>[] = [];
      for (const m of messages) {
        if (!this.usable) throw this.broken ?? new Error("GELF connection closed");
        const done = new Promise<void>((resolve, reject) => {
          socket.write(`${m}\0`, "utf8", (err) => (err ? reject(err) : resolve()));
        });
        done.catch(() => undefined); // awaited below; a failure before then must not go unhandled
        written.push(done);
        if (socket.writableNeedDrain) {
          await new Promise<void>((resolve, reject) => {
            const onDrain = () => {
              socket.off("close", onClose);
              resolve();
            };
            const onClose = () => {
              socket.off("drain", onDrain);
              reject(this.broken ?? new Error("GELF connection closed"));
            };
            socket.once("drain", onDrain);
            socket.once("close", onClose);
          });
        }
      }
      await Promise.all(written);
      if (!this.usable) throw this.broken ?? new Error("GELF connection closed");
    })();
    await withTimeout(work, this.timeouts.writeMs, "GELF write", () => this.close());
  }
  close(): void {
    this.broken ??= new Error("GELF connection closed");
    this.socket.destroy();
  }
}

/**
 * Opens a transport to `target`. UDP resolves the name once and binds a socket of its family; TCP
 * connects; TLS connects and verifies the certificate chain (system roots plus `extraCaPem` when
 * given) and the name (SNI and identity check for a host name, IP SAN for an address), TLS 1.2 or
 * later. Rejects on failure or after `timeouts.connectMs`.
 */
export async function openTransport(
  target: GelfTarget,
  timeouts: TransportTimeouts,
  extraCaPem = "",
): Promise<GelfTransport> {
  if (target.protocol === "udp") {
    const { address, family } = await withTimeout(
      lookup(target.host),
      timeouts.connectMs,
      "GELF name lookup",
      () => undefined,
    );
    const socket = createSocket(family === 6 ? "udp6" : "udp4");
    return new UdpTransport(socket, address, target.port, timeouts);
  }
  const socket =
    target.protocol === "tcp"
      ? tcpConnect({ host: target.host, port: target.port })
      : tlsConnect({
          host: target.host,
          port: target.port,
          ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
          ...(extraCaPem.trim() !== "" ? { ca: [...rootCertificates, extraCaPem] } : {}),
          rejectUnauthorized: true,
          minVersion: "TLSv1.2",
        });
  const ready = target.protocol === "tcp" ? "connect" : "secureConnect";
  const connected = new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    socket.once("error", onError);
    socket.once(ready, () => {
      socket.off("error", onError);
      resolve();
    });
  });
  try {
    await withTimeout(connected, timeouts.connectMs, `GELF ${target.protocol} connect`, () => socket.destroy());
  } catch (err) {
    socket.destroy();
    throw err;
  }
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 30_000);
  return new StreamTransport(socket, timeouts);
}
