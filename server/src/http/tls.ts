/**
 * TLS of the main listener (docs/install.md "TLS"): PEM files given by POSTERN_TLS_CERT and
 * POSTERN_TLS_KEY, read again on SIGHUP; or, with POSTERN_TLS=self-signed, a certificate made at
 * first start (ECDSA P-256, valid 5 years, for this host's name, localhost and the loopback
 * addresses) and kept in `<data dir>/tls/` so agents that pinned its fingerprint keep working.
 * The SHA-256 fingerprint is what `postern-agent enrol --server-fingerprint` pins.
 */
import { X509Certificate, createPrivateKey, webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { isIP } from "node:net";
import { join } from "node:path";
import type { TlsConfig } from "../config/index.ts";
import { loadX509 } from "../x509.ts";

/** A certificate chain and its private key (PEM), with the leaf's SHA-256 fingerprint. */
export interface TlsCredentials {
  cert: string;
  key: string;
  /** SHA-256 of the leaf certificate's DER, upper-case hex pairs joined by colons (as openssl prints it). */
  fingerprint: string;
}

/** Validity of a generated self-signed certificate, in days. */
export const SELF_SIGNED_DAYS = 5 * 365;

/** Where the self-signed certificate and key live inside a data directory. */
export function selfSignedPaths(dataDir: string): { dir: string; cert: string; key: string } {
  const dir = join(dataDir, "tls");
  return { dir, cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
}

/**
 * The credentials the listener serves with, or undefined for plain http. For `files` the files are
 * read now (call again on SIGHUP); for `self-signed` the kept certificate is read, or made and kept.
 * `names` are extra DNS names or IP addresses for a new certificate (the listen host).
 * @throws Error naming the file when a file cannot be read or the key does not match the certificate.
 */
export async function loadTlsCredentials(
  config: TlsConfig,
  dataDir: string,
  names: readonly string[] = [],
): Promise<TlsCredentials | undefined> {
  if (config.mode === "off") return undefined;
  if (config.mode === "files") return readCredentials(config.certFile, config.keyFile);
  const paths = selfSignedPaths(dataDir);
  if (!existsSync(paths.cert) || !existsSync(paths.key)) {
    const made = await makeSelfSigned([hostname(), "localhost", "127.0.0.1", "::1", ...names]);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.key, made.key, { mode: 0o600 });
    writeFileSync(paths.cert, made.cert, { mode: 0o644 });
  }
  return readCredentials(paths.cert, paths.key);
}

/** Reads a certificate (chain) and key and checks that they belong together. @throws Error naming the file. */
export function readCredentials(certFile: string, keyFile: string): TlsCredentials {
  const cert = readPem(certFile, "certificate");
  const key = readPem(keyFile, "private key");
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`${certFile}: not a PEM certificate (${(err as Error).message})`, { cause: err });
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new Error(`${keyFile}: not a PEM private key (${(err as Error).message})`, { cause: err });
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new Error(`${keyFile}: the key does not belong to ${certFile}`);
  return { cert, key, fingerprint: leaf.fingerprint256 };
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(
      `${file}: the TLS ${what} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { cause: err },
    );
  }
}

/** Makes a self-signed ECDSA P-256 certificate for `names` (DNS names and IP addresses; duplicates dropped). */
export async function makeSelfSigned(names: readonly string[]): Promise<{ cert: string; key: string }> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const unique = [...new Set(names.filter((n) => n !== "" && n !== "0.0.0.0" && n !== "::"))];
  const now = Date.now();
  const cn = (unique[0] ?? "postern").replace(/[,=+<>#;"\\]/g, "");
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
        .toString("hex")
        .replace(/^[89a-f]/, "1"),
      name: `CN=${cn}, O=Postern`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + SELF_SIGNED_DAYS * 86_400_000),
      signingAlgorithm: alg,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          unique.map((n) => (isIP(n) ? { type: "ip" as const, value: n } : { type: "dns" as const, value: n })),
        ),
      ],
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString("pem") + "\n", key };
}
