/**
 * The agent one-liner (packaging/README.md "The agent one-liner"): the install command shown after
 * an agent is created, the install script the server answers at GET /install/agent.sh (the POSIX sh
 * template `agent-install.sh` with this server's URL, and for a self-signed certificate its pins,
 * filled in), and where the agent package lies that GET /install/postern-agent.deb answers.
 */
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The pins of a self-signed server certificate: `fingerprint`, SHA-256 of the certificate's DER as
 * colon-separated upper-case hex (what `postern-agent enrol --server-fingerprint` takes), and `spki`,
 * base64 SHA-256 of its public key (what `curl --pinnedpubkey sha256//…` takes).
 */
export interface TlsPin {
  fingerprint: string;
  spki: string;
}

/**
 * The pins of a PEM certificate (the leaf, when it is a chain).
 * @throws Error when `certPem` is not a certificate.
 */
export function tlsPinOf(certPem: string): TlsPin {
  const cert = new X509Certificate(certPem);
  const spkiDer = cert.publicKey.export({ type: "spki", format: "der" });
  return { fingerprint: cert.fingerprint256, spki: createHash("sha256").update(spkiDer).digest("base64") };
}

/**
 * The agent package shipped in the server package (/usr/lib/postern/agent/postern-agent.deb, the
 * installed tree mirroring the repository); absent when the server runs from source.
 */
export const AGENT_PACKAGE_PATH = fileURLToPath(new URL("../../../agent/postern-agent.deb", import.meta.url));

const URL_RE = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?$/;
const FINGERPRINT_RE = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){31}$/;
const SPKI_RE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Checks what goes into a shell command or the script: a plain http(s) URL without quotes, spaces
 * or query, and well-formed pins.
 * @throws Error naming the bad value.
 */
function checkInputs(serverUrl: string, pin: TlsPin | undefined): string {
  const url = serverUrl.replace(/\/+$/, "");
  if (!URL_RE.test(url)) throw new Error(`not a server URL the install script can carry: ${serverUrl}`);
  if (pin && (!FINGERPRINT_RE.test(pin.fingerprint) || !SPKI_RE.test(pin.spki))) throw new Error("malformed TLS pin");
  return url;
}

/**
 * The one-liner that installs, enrols and starts an agent:
 * `curl -fsSL URL/install/agent.sh | sudo sh -s -- --token TOKEN`; for a self-signed certificate curl
 * trusts the certificate's public key alone (`--insecure --pinnedpubkey`) and the agent its fingerprint.
 * @throws Error when `serverUrl` or `pin` are malformed (never for what publicUrl answers).
 */
export function installCommand(serverUrl: string, token: string, pin?: TlsPin): string {
  const url = checkInputs(serverUrl, pin);
  const curlTls = pin ? ` --insecure --pinnedpubkey sha256//${pin.spki}` : "";
  const enrolTls = pin ? ` --server-fingerprint ${pin.fingerprint}` : "";
  return `curl -fsSL${curlTls} ${url}/install/agent.sh | sudo sh -s -- --token ${token}${enrolTls}`;
}

let template: string | undefined;

/**
 * The install script for this server: the template with `@SERVER_URL@`, `@SERVER_FINGERPRINT@` and
 * `@SPKI_PIN@` filled in (the pins empty without a self-signed certificate).
 * @throws Error when `serverUrl` or `pin` are malformed.
 */
export function installScript(serverUrl: string, pin?: TlsPin): string {
  const url = checkInputs(serverUrl, pin);
  template ??= readFileSync(new URL("./agent-install.sh", import.meta.url), "utf8");
  return template
    .replaceAll("@SERVER_URL@", url)
    .replaceAll("@SERVER_FINGERPRINT@", pin?.fingerprint ?? "")
    .replaceAll("@SPKI_PIN@", pin?.spki ?? "");
}
