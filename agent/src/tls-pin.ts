/**
 * Trusting a server's self-signed certificate by its SHA-256 fingerprint (docs/install.md "TLS";
 * docs/decisions.md "Agents enrol against a self-signed server by fingerprint"). `postern-agent enrol
 * --server-fingerprint FP` reads the certificate the server presents without sending anything,
 * compares its fingerprint with FP, and from then on trusts that one certificate and nothing else:
 * it is the only CA of every connection and its fingerprint must match (hostname checks are replaced
 * by the pin, so the agent may dial the server by any of its names or addresses). Nobody turns
 * verification off.
 */
import { X509Certificate } from "node:crypto";
import type { PeerCertificate } from "node:tls";
import { connect } from "node:tls";
import { isIP } from "node:net";

/**
 * The canonical form of a SHA-256 fingerprint: 32 upper-case hex pairs joined by colons (as openssl
 * and the server print it). Accepts colons or none, any case, an optional "sha256:" or "SHA256=" prefix.
 * @throws Error when it is not 64 hex digits.
 */
export function normaliseFingerprint(input: string): string {
  const hex = input
    .trim()
    .replace(/^sha-?256[:=]\s*/i, "")
    .replace(/[:\s]/g, "")
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex))
    throw new Error("the server fingerprint must be a SHA-256 fingerprint: 64 hex digits");
  return hex.match(/../g)!.join(":");
}

/** TLS options that trust exactly one certificate: it is the only CA, and its fingerprint must match. */
export interface PinnedTls {
  ca: string;
  checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
}

/** The TLS options of connections to a server pinned by its certificate (PEM) and fingerprint. */
export function pinnedTlsOptions(certificatePem: string, fingerprint: string): PinnedTls {
  const pinned = normaliseFingerprint(fingerprint);
  return {
    ca: certificatePem,
    checkServerIdentity: (_host, cert) =>
      cert.fingerprint256 === pinned
        ? undefined
        : new Error(`the server's certificate changed: SHA-256 ${cert.fingerprint256}, pinned ${pinned}`),
  };
}

/**
 * Reads the certificate an https server presents (sending no application data) and checks it
 * against `fingerprint`. Returns the certificate as PEM. Times out after `timeoutMs` MILLISECONDS.
 * @throws Error when the server cannot be reached or presents another certificate (both fingerprints named).
 */
export function fetchPinnedCertificate(serverUrl: string, fingerprint: string, timeoutMs = 15_000): Promise<string> {
  const expected = normaliseFingerprint(fingerprint);
  const url = new URL(serverUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 443);
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port,
      rejectUnauthorized: false,
      ...(isIP(host) ? {} : { servername: host }),
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    socket.once("secureConnect", () => {
      const raw = socket.getPeerX509Certificate();
      socket.end();
      if (!raw) return reject(new Error(`${url.host} presented no certificate`));
      const cert = new X509Certificate(raw.raw);
      if (cert.fingerprint256 !== expected)
        return reject(
          new Error(`${url.host} presented certificate SHA-256 ${cert.fingerprint256}, not the expected ${expected}`),
        );
      resolve(cert.toString());
    });
    socket.once("error", (err) => reject(new Error(`cannot reach ${url.host}: ${err.message}`, { cause: err })));
  });
}
