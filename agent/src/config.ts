/**
 * The agent's configuration file (docs/reference.md design "Agent protocol": enrolment writes it, the daemon reads it;
 * "Security": it holds the agent's private keys, so it is written with mode 0600 and refused when other
 * users can read it).
 *
 * The file is JSON:
 * ```json
 * {
 *   "server": "https://postern.example.com",     // base URL of the server (https; http only to loopback)
 *   "servers": ["https://postern-b.example.com"], // optional: more base URLs of the same installation (replicas), tried in rotation after `server`
 *   "agentId": "…",                               // AgentID returned by enrolment
 *   "serverPublicKey": "…",                       // the server's agent signing key (Ed25519 SPKI DER, base64), pinned at enrolment
 *   "serverFingerprint": "AB:CD:…",               // optional: SHA-256 of the server's self-signed TLS certificate (enrol --server-fingerprint)
 *   "serverCertificate": "-----BEGIN CERTIFICATE-----…", // that certificate (PEM): the only one trusted (tls-pin.ts)
 *   "signingPrivateKey": "-----BEGIN PRIVATE KEY-----…", // Ed25519, PKCS#8 PEM
 *   "boxPublicKey": "…",                          // X25519 public key, raw 32 bytes, base64
 *   "boxSecretKey": "…",                          // X25519 secret key, raw 32 bytes, base64
 *   "scriptsEnabled": false,                      // custom scripts and webhooks (default off)
 *   "scriptTimeoutSeconds": 30,                   // longest run of one script call (default 30)
 *   "knocproxyDir": "/etc/haproxy/postern",       // folder of knocproxy <Name>.acl files (default)
 *   "haproxySocket": "/run/haproxy/admin.sock",   // optional, reported in capabilities
 *   "useSudo": true,                              // default: true unless running as root
 *   "stateFile": "agent.state.json",              // default: next to the config file
 *   "driftCheckSeconds": 5,                       // seconds between drift checks (default 5)
 *   "logLevel": "info"                            // pino level (default info)
 * }
 * ```
 */
import { X509Certificate, randomBytes } from "node:crypto";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { normaliseIp } from "@postern/shared";

/** Log levels accepted in `logLevel` (pino's). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const base64Key32 = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, `${what} must be base64`)
    .refine((s) => Buffer.from(s, "base64").length === 32, `${what} must be 32 bytes`);

/** True when `hostname` (a URL's, IPv6 in brackets) is this host's loopback: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (host === "localhost") return true;
  const ip = normaliseIp(host);
  if (!ip) return false;
  return ip.family === "inet" ? ip.ip.startsWith("127.") : ip.ip === "::1";
}

/**
 * Why the agent refuses to talk to `server` (a base URL), or undefined when it may: only https://
 * (or wss://), and http:// (or ws://) to a loopback host; nothing is sent unencrypted over a network.
 */
export function insecureServerReason(server: string): string | undefined {
  const url = URL.parse(server);
  if (!url) return `"${server}" is not a URL`;
  if (url.protocol === "https:" || url.protocol === "wss:") return undefined;
  if (url.protocol !== "http:" && url.protocol !== "ws:") return `"${server}" is not an https:// URL`;
  if (isLoopbackHost(url.hostname)) return undefined;
  return `refusing ${url.protocol}// to ${url.hostname}: the server must be https:// (http:// only to this host's loopback address)`;
}

/** True when `value` is base64 of an Ed25519 public key in SPKI DER. */
function isEd25519Spki(value: string): boolean {
  try {
    return (
      /^[A-Za-z0-9+/]+={0,2}$/.test(value) &&
      createPublicKey({ key: Buffer.from(value, "base64"), format: "der", type: "spki" }).asymmetricKeyType ===
        "ed25519"
    );
  } catch {
    return false;
  }
}

/** What to do about a config enrolled before agents pinned their server (no serverPublicKey). */
export const NO_SERVER_KEY_PROBLEM =
  "serverPublicKey is missing: this agent was enrolled before agents pinned their server, so it cannot tell its " +
  "server from an impostor. Enrol again (postern-agent enrol --force with a new token), or add " +
  '"serverPublicKey": "<the key printed by `postern agent server-key` on the server>" to this file';

/** Most URLs the config's `servers` list may hold. */
export const MAX_SERVER_URLS = 16;

/** One server base URL in the config: https:// (http:// only to loopback), reasons as {@link insecureServerReason}. */
function serverUrlSchema(what: string) {
  return z.url({ protocol: /^https?$/, error: `${what} must be an https:// URL` }).superRefine((server, ctx) => {
    const reason = /^https?:/i.test(server) ? insecureServerReason(server) : undefined; // else z.url said it
    if (reason) ctx.addIssue({ code: "custom", message: reason });
  });
}

/**
 * Every server base URL of a config, in the order the agent tries them (docs/high-availability.md
 * "Agents with several server URLs"): `server` first, then `servers`, each URL once (compared after
 * removing trailing slashes), so `servers` may or may not repeat `server`.
 */
export function serverList(server: string, servers: readonly string[] = []): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const url of [server, ...servers]) {
    const key = url.replace(/\/+$/, "");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(url);
  }
  return out;
}

/**
 * The schema of the config file as stored (before defaults are resolved). Unknown keys are refused so
 * that a misspelt option (e.g. `scriptEnabled`) is reported instead of silently ignored. Error messages
 * never include the values, so a private key is never echoed.
 */
export const AgentConfigFileSchema = z
  .object({
    server: serverUrlSchema("server"),
    servers: z
      .array(serverUrlSchema("servers[]"), { error: "servers must be a list of https:// URLs" })
      .max(MAX_SERVER_URLS, `servers holds at most ${MAX_SERVER_URLS} URLs`)
      .optional(),
    agentId: z.string().min(1, "agentId is required"),
    serverPublicKey: z
      .string()
      .optional()
      .refine(
        (k) => k === undefined || isEd25519Spki(k),
        "serverPublicKey must be an Ed25519 public key (SPKI DER, base64)",
      ),
    serverFingerprint: z
      .string()
      .regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, "serverFingerprint must be a SHA-256 fingerprint (AB:CD:…)")
      .optional(),
    serverCertificate: z
      .string()
      .refine((pem) => {
        try {
          new X509Certificate(pem);
          return true;
        } catch {
          return false;
        }
      }, "serverCertificate must be a PEM certificate")
      .optional(),
    signingPrivateKey: z.string().refine((pem) => {
      try {
        return createPrivateKey(pem).asymmetricKeyType === "ed25519";
      } catch {
        return false;
      }
    }, "signingPrivateKey must be an Ed25519 private key in PKCS#8 PEM"),
    boxPublicKey: base64Key32("boxPublicKey"),
    boxSecretKey: base64Key32("boxSecretKey"),
    scriptsEnabled: z.boolean().default(false),
    scriptTimeoutSeconds: z.number().positive().max(3600).default(30),
    knocproxyDir: z
      .string()
      .regex(/^\/\S*$/, "knocproxyDir must be an absolute path without spaces")
      .default("/etc/haproxy/postern"),
    haproxySocket: z.string().min(1).optional(),
    useSudo: z.boolean().optional(),
    stateFile: z.string().min(1).optional(),
    driftCheckSeconds: z.number().positive().max(3600).default(5),
    logLevel: z.enum(LOG_LEVELS).default("info"),
  })
  .strict()
  .refine((c) => (c.serverFingerprint === undefined) === (c.serverCertificate === undefined), {
    message: "serverFingerprint and serverCertificate go together",
    path: ["serverFingerprint"],
  });

/** The config file's content as written (optional fields may be left out). */
export type AgentConfigFile = z.input<typeof AgentConfigFileSchema>;

/** The resolved configuration the daemon runs with: every default applied, paths absolute. */
export interface AgentConfig {
  /** Absolute path of the file this configuration was read from. */
  readonly configPath: string;
  /** Base URL of the server, e.g. `https://postern.example.com` (may carry a path prefix): the first of `servers`. */
  readonly server: string;
  /**
   * Every base URL of the installation, `server` first, each once ({@link serverList}): the agent tries them
   * in rotation when its connection ends (docs/high-availability.md). One entry when the file has no `servers`.
   */
  readonly servers: readonly string[];
  readonly agentId: string;
  /** The server's agent signing key pinned at enrolment (Ed25519 SPKI DER, base64). */
  readonly serverPublicKey: string;
  /** The server's self-signed TLS certificate pinned by fingerprint at enrolment (tls-pin.ts); absent: the system CAs. */
  readonly serverPin?: { readonly certificate: string; readonly fingerprint: string };
  /** Ed25519 private key, PKCS#8 PEM. Never log it. */
  readonly signingPrivateKey: string;
  /** X25519 public key, raw 32 bytes, base64. */
  readonly boxPublicKey: string;
  /** X25519 secret key, raw 32 bytes, base64. Never log it. */
  readonly boxSecretKey: string;
  readonly scriptsEnabled: boolean;
  /** Longest run of one script call, in seconds. */
  readonly scriptTimeoutSeconds: number;
  /** Folder of knocproxy `<Name>.acl` files. */
  readonly knocproxyDir: string;
  readonly haproxySocket?: string;
  readonly useSudo: boolean;
  /** Absolute path of the persisted desired state. */
  readonly stateFile: string;
  /** Seconds between two drift checks. */
  readonly driftCheckSeconds: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
}

/** A config file that cannot be used. `problems` lists one readable line per problem. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(message: string, problems: readonly string[] = []) {
    super(problems.length > 0 ? `${message}:\n${problems.map((p) => `  - ${p}`).join("\n")}` : message);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** The default state file of a config file: `agent.json` → `agent.state.json` in the same folder. */
export function defaultStateFile(configPath: string): string {
  const abs = resolve(configPath);
  const ext = extname(abs);
  return join(dirname(abs), `${basename(abs, ext)}.state.json`);
}

/** True when the current process runs as root (uid 0). */
function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/**
 * Validates a parsed config object and resolves its defaults (`useSudo`: true unless `root`; `stateFile`:
 * next to `configPath`, relative paths resolved against the config's folder). A config without
 * `serverPublicKey` (enrolled before agents pinned their server) is refused, fail closed, with
 * NO_SERVER_KEY_PROBLEM.
 * @throws ConfigError listing every problem (field path and what is wrong; never the value).
 */
export function resolveConfig(raw: unknown, configPath: string, options: { root?: boolean } = {}): AgentConfig {
  const parsed = AgentConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join(".");
      if (issue.code === "unrecognized_keys") return `unknown option(s): ${issue.keys.join(", ")}`;
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw new ConfigError(`invalid agent config ${configPath}`, problems);
  }
  const c = parsed.data;
  if (c.serverPublicKey === undefined)
    throw new ConfigError(`invalid agent config ${configPath}`, [NO_SERVER_KEY_PROBLEM]);
  const abs = resolve(configPath);
  return {
    configPath: abs,
    server: c.server,
    servers: serverList(c.server, c.servers),
    agentId: c.agentId,
    serverPublicKey: c.serverPublicKey,
    ...(c.serverFingerprint !== undefined && c.serverCertificate !== undefined
      ? { serverPin: { certificate: c.serverCertificate, fingerprint: c.serverFingerprint } }
      : {}),
    signingPrivateKey: c.signingPrivateKey,
    boxPublicKey: c.boxPublicKey,
    boxSecretKey: c.boxSecretKey,
    scriptsEnabled: c.scriptsEnabled,
    scriptTimeoutSeconds: c.scriptTimeoutSeconds,
    knocproxyDir: c.knocproxyDir,
    ...(c.haproxySocket !== undefined ? { haproxySocket: c.haproxySocket } : {}),
    useSudo: c.useSudo ?? !(options.root ?? isRoot()),
    stateFile:
      c.stateFile === undefined
        ? defaultStateFile(abs)
        : isAbsolute(c.stateFile)
          ? c.stateFile
          : resolve(dirname(abs), c.stateFile),
    driftCheckSeconds: c.driftCheckSeconds,
    logLevel: c.logLevel,
  };
}

/**
 * Reads, checks and resolves the config file at `path`.
 * Refuses (like ssh does for private keys) a file that users other than its owner can access
 * (any of the mode bits 0077), unless `checkMode` is false.
 * @throws ConfigError when the file is missing, unreadable, too open, not JSON, or invalid (each problem listed).
 */
export async function loadConfig(
  path: string,
  options: { checkMode?: boolean; root?: boolean } = {},
): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new ConfigError(`agent config ${path} does not exist (run "postern-agent enrol" first)`);
    throw new ConfigError(`cannot read agent config ${path}: ${(err as Error).message}`);
  }
  if (options.checkMode !== false) {
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) {
      throw new ConfigError(
        `agent config ${path} is accessible by other users (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); ` +
          `it holds the agent's private keys: run "chmod 600 ${path}"`,
      );
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`agent config ${path} is not valid JSON: ${(err as Error).message}`);
  }
  return resolveConfig(raw, path, options);
}

/**
 * Writes `data` (one string, or strings written one after the other, so that a large file needs no
 * single string of its size) to `path` atomically: a temporary file in the same folder (created with
 * `mode`, default 0600), fsync, rename over `path`, fsync of the folder. Readers see the old or the new
 * content, never a torn one. Creates the folder (mode 0700) when missing.
 * @throws the file system error when any step fails (the temporary file is removed).
 */
export async function writeFileAtomic(path: string, data: string | readonly string[], mode = 0o600): Promise<void> {
  const dir = dirname(resolve(path));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(tmp, "wx", mode);
  try {
    try {
      await handle.writeFile(data, "utf8");
      await handle.chmod(mode); // umask may have narrowed or the mode argument been ignored
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  try {
    const dirHandle = await open(dir, "r");
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    // fsync of a directory is not supported everywhere; the rename itself is already atomic.
  }
}

/**
 * Validates `config` and writes it to `path` as pretty JSON, atomically, mode 0600.
 * @throws ConfigError when `config` is invalid; the file system error when it cannot be written.
 */
export async function saveConfig(path: string, config: AgentConfigFile): Promise<void> {
  const parsed = AgentConfigFileSchema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigError(
      `refusing to write invalid agent config ${path}`,
      parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`),
    );
  }
  await writeFileAtomic(path, `${JSON.stringify(config, null, 2)}\n`, 0o600);
}

/**
 * The URL of a server endpoint: `path` (e.g. AGENT_CONNECT_PATH) appended to the base URL `server`,
 * keeping any path prefix of the base. With `websocket`, http: becomes ws: and https: becomes wss:.
 */
export function serverEndpoint(server: string, path: string, options: { websocket?: boolean } = {}): URL {
  const url = new URL(server);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  url.search = "";
  url.hash = "";
  if (options.websocket) url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url;
}
