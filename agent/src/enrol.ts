/**
 * Enrolment (docs/reference.md design "Agent protocol" → Enrolment): the agent generates its own key pairs, sends the
 * public halves with the one-time token to `POST /api/agent/enrol` — or, for automated provisioning,
 * with an API key of scope `agent.register` and a name to `POST /api/agent/register`, which creates
 * the agent too — and writes its config file (mode 0600) with the AgentID the server assigned and the
 * server's signing key (`ServerKey`), which it pins. The private keys never leave this host. Only
 * https:// servers are contacted (http:// only on loopback).
 */
import { generateKeyPairSync } from "node:crypto";
import { access, constants, rm } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { AGENT_ENROL_PATH, AGENT_REGISTER_PATH, EnrolResponseSchema, ErrorBodySchema } from "@postern/shared";
import type { AgentCapabilities, AgentRegisterRequest, EnrolRequest, EnrolResponse } from "@postern/shared";
import { Agent as UndiciAgent, fetch as undiciFetch } from "undici";
import { fetchPinnedCertificate, normaliseFingerprint, pinnedTlsOptions } from "./tls-pin.ts";
import { insecureServerReason, saveConfig, serverEndpoint, writeFileAtomic } from "./config.ts";
import type { AgentConfigFile } from "./config.ts";

/** The agent's key material. Public keys go to the server; private keys only into the config file. */
export interface AgentKeys {
  /** Ed25519 private key, PKCS#8 PEM. */
  readonly signingPrivateKey: string;
  /** Ed25519 public key, SPKI DER, base64 (EnrolRequest.SigningPublicKey). */
  readonly signingPublicKey: string;
  /** X25519 public key, raw 32 bytes, base64 (EnrolRequest.BoxPublicKey; libsodium sealed boxes). */
  readonly boxPublicKey: string;
  /** X25519 secret key, raw 32 bytes, base64. */
  readonly boxSecretKey: string;
}

/** Generates a fresh Ed25519 signing key pair and X25519 box key pair (node:crypto). */
export function generateAgentKeys(): AgentKeys {
  const signing = generateKeyPairSync("ed25519");
  const box = generateKeyPairSync("x25519");
  const jwk = box.privateKey.export({ format: "jwk" });
  if (typeof jwk.d !== "string" || typeof jwk.x !== "string") throw new Error("cannot export X25519 key");
  return {
    signingPrivateKey: signing.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    signingPublicKey: signing.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
    boxPublicKey: Buffer.from(jwk.x, "base64url").toString("base64"),
    boxSecretKey: Buffer.from(jwk.d, "base64url").toString("base64"),
  };
}

/** Options of {@link enrol}. */
export interface EnrolOptions {
  /** Base URL of the server (https; http only to loopback). */
  readonly server: string;
  /** The one-time agent token the admin console showed (or give `apiKey` and `name`). */
  readonly token?: string;
  /** An API key of scope `agent.register`: creates the agent `name` and enrols it in one step. */
  readonly apiKey?: string;
  /** The new agent's name (with `apiKey`). */
  readonly name?: string;
  /** Where to write the config file (mode 0600). */
  readonly configPath: string;
  /** Capabilities reported with the enrolment. */
  readonly capabilities: AgentCapabilities;
  /** The agent's version (semver). */
  readonly version: string;
  /** fetch implementation (tests); default the global fetch. */
  readonly fetch?: typeof fetch;
  /** Overwrite an existing config file (its identity is lost). Default false. */
  readonly force?: boolean;
  /** Extra config fields written along (e.g. scriptsEnabled, haproxySocket). */
  readonly settings?: Partial<
    Pick<
      AgentConfigFile,
      "scriptsEnabled" | "haproxySocket" | "useSudo" | "stateFile" | "driftCheckSeconds" | "logLevel" | "servers"
    >
  >;
  /** Request timeout in milliseconds (default 30 000). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * SHA-256 fingerprint of the server's self-signed certificate (https only): the certificate is
   * read and checked before anything is sent, trusted alone from then on, and kept in the config.
   */
  readonly serverFingerprint?: string;
}

/** Outcome of a successful enrolment. */
export interface EnrolResult {
  readonly agentId: string;
  readonly name: string;
  /** Absolute path of the config file written. */
  readonly configPath: string;
}

/** Enrolment failed. `status` and `body` are set when the server answered with an error. */
export class EnrolError extends Error {
  readonly status?: number;
  readonly body?: { Err: string; Extra?: string };
  constructor(
    message: string,
    details: { status?: number; body?: { Err: string; Extra?: string }; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "EnrolError";
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Enrols this agent: generates keys, POSTs an EnrolRequest to `${server}/api/agent/enrol` (with
 * `apiKey` and `name`: an AgentRegisterRequest to `/api/agent/register`, Bearer key), and writes the
 * config file with the server key it pins. Before contacting the server (which consumes the token) it checks that the config can be
 * written and does not exist yet (unless `force`). Redirects are refused (the token is not re-sent
 * elsewhere).
 * @throws EnrolError with a readable message: neither or both of token and API key, server URL not
 *   https:// (http:// only to loopback; nothing is sent then), config exists, folder not writable, server unreachable,
 *   HTTP error (`HTTP 401: err.unauthorised: <Extra>` from the server's `{Err, Extra}`), invalid answer,
 *   or config write failure.
 */
export async function enrol(options: EnrolOptions): Promise<EnrolResult> {
  const configPath = resolve(options.configPath);
  const token = options.token?.trim() ?? "";
  const apiKey = options.apiKey?.trim() ?? "";
  const name = options.name?.trim() ?? "";
  if (options.token !== undefined && options.apiKey !== undefined)
    throw new EnrolError("give either a token or an API key, not both");
  if (options.apiKey === undefined && !token) throw new EnrolError("the enrolment token is empty");
  if (options.apiKey !== undefined && !apiKey) throw new EnrolError("the API key is empty");
  if (options.apiKey !== undefined && !name) throw new EnrolError("an agent name is required with an API key");
  let url: URL;
  try {
    url = serverEndpoint(options.server, apiKey ? AGENT_REGISTER_PATH : AGENT_ENROL_PATH);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new EnrolError(`invalid server URL "${options.server}": expected https://`);
  }
  const insecure = insecureServerReason(options.server);
  if (insecure) throw new EnrolError(`invalid server URL: ${insecure}`);
  if (!options.force && (await exists(configPath))) {
    throw new EnrolError(
      `agent config ${configPath} already exists; this agent is enrolled (use --force to enrol again and replace its identity)`,
    );
  }
  // Prove the config can be written before the token is spent.
  const probe = resolve(dirname(configPath), `.postern-agent-probe-${process.pid}`);
  try {
    await writeFileAtomic(probe, "", 0o600);
    await rm(probe, { force: true });
  } catch (err) {
    throw new EnrolError(`cannot write the agent config in ${dirname(configPath)}: ${(err as Error).message}`, {
      cause: err,
    });
  }

  let pin: { certificate: string; fingerprint: string } | undefined;
  let doFetch = options.fetch ?? fetch;
  if (options.serverFingerprint !== undefined) {
    if (url.protocol !== "https:") throw new EnrolError("--server-fingerprint needs an https:// server URL");
    let fingerprint: string;
    try {
      fingerprint = normaliseFingerprint(options.serverFingerprint);
    } catch (err) {
      throw new EnrolError((err as Error).message, { cause: err });
    }
    try {
      pin = { certificate: await fetchPinnedCertificate(options.server, fingerprint), fingerprint };
    } catch (err) {
      throw new EnrolError(`refusing the server: ${(err as Error).message}`, { cause: err });
    }
    const dispatcher = new UndiciAgent({ connect: pinnedTlsOptions(pin.certificate, pin.fingerprint) });
    doFetch = ((input: URL, init: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  }

  const keys = generateAgentKeys();
  const common = {
    SigningPublicKey: keys.signingPublicKey,
    BoxPublicKey: keys.boxPublicKey,
    Version: options.version,
    Capabilities: options.capabilities,
  };
  const request: EnrolRequest | AgentRegisterRequest = apiKey ? { Name: name, ...common } : { Token: token, ...common };
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await doFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": `postern-agent/${options.version}`,
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify(request),
      redirect: "error",
      signal,
    });
  } catch (err) {
    const cause = err as Error & { cause?: { message?: string } };
    const detail = cause.name === "TimeoutError" ? "timed out" : (cause.cause?.message ?? cause.message);
    throw new EnrolError(`cannot reach the server at ${url.origin}: ${detail}`, { cause: err });
  }
  const text = await response.text();
  if (!response.ok) {
    let body: { Err: string; Extra?: string } | undefined;
    try {
      const parsed = ErrorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // not JSON: shown as text below
    }
    const what = body
      ? `${body.Err}${body.Extra ? `: ${body.Extra}` : ""}`
      : text.trim().slice(0, 200) || response.statusText;
    throw new EnrolError(`enrolment refused by the server (HTTP ${response.status}): ${what}`, {
      status: response.status,
      ...(body ? { body } : {}),
    });
  }
  let answer: EnrolResponse;
  try {
    answer = EnrolResponseSchema.parse(JSON.parse(text));
  } catch {
    throw new EnrolError(`the server's enrolment answer is not valid (HTTP ${response.status}): ${text.slice(0, 200)}`);
  }
  if (!answer.AgentID) throw new EnrolError("the server's enrolment answer has no AgentID");

  const config: AgentConfigFile = {
    server: options.server,
    agentId: answer.AgentID,
    serverPublicKey: answer.ServerKey,
    ...(pin ? { serverFingerprint: pin.fingerprint, serverCertificate: pin.certificate } : {}),
    signingPrivateKey: keys.signingPrivateKey,
    boxPublicKey: keys.boxPublicKey,
    boxSecretKey: keys.boxSecretKey,
    scriptsEnabled: false,
    ...options.settings,
  };
  try {
    await saveConfig(configPath, config);
  } catch (err) {
    throw new EnrolError(
      `enrolled as agent ${answer.AgentID} but could not write ${configPath}: ${(err as Error).message}; create a new token and enrol again`,
      { cause: err },
    );
  }
  return { agentId: answer.AgentID, name: answer.Name, configPath };
}
