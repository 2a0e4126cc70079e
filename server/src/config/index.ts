/**
 * Server configuration from the configuration file (`file.ts`, named by `--config` or POSTERN_CONFIG)
 * and the environment, which overrides the file; parsed and validated once into a frozen object, with
 * every problem listed. Variables: POSTERN_DATA_DIR (default ./data), POSTERN_LISTEN (host:port, default 127.0.0.1:8080),
 * POSTERN_LOG_LEVEL (default info), POSTERN_TRUSTED_PROXIES (comma-separated IPs or CIDRs of reverse
 * proxies whose X-Forwarded-For is believed; default none), POSTERN_LICENSE_PUBLIC_KEYS (comma-separated
 * Ed25519 public keys trusted to sign licence keys, each base64 of the raw 32 bytes or of the SPKI DER;
 * default none), POSTERN_DISCOVERY_PORTS (comma-separated TCP ports of extra IP-discovery listeners
 * answering GET /api/ip, e.g. 443,222,3389,8000; default none; see http/discovery.ts),
 * POSTERN_DISCOVERY_TLS_CERT and POSTERN_DISCOVERY_TLS_KEY (PEM files: those listeners serve https;
 * both or neither), POSTERN_AGENT_TOKEN_HOURS (lifetime of agent install tokens in hours, default 24,
 * at most 8760; `postern agent create` reads it too), POSTERN_TLS (`off`, the default, or
 * `self-signed`: a certificate made at first start and kept in the data directory, see `tls.ts`),
 * POSTERN_TLS_CERT and POSTERN_TLS_KEY (PEM files: serve https with them, reloaded on SIGHUP; both or
 * neither, not with `self-signed`), POSTERN_METRICS_TOKEN (bearer token that lets other hosts than
 * loopback read /metrics; at least 16 characters; default none), POSTERN_DATABASE_URL
 * (`postgres://user:password@host:port/database`: PostgreSQL instead of the SQLite file in the data
 * directory, for several replicas: docs/high-availability.md; default none).
 */
import { resolve } from "node:path";
import { readConfigFile } from "./file.ts";
import { z } from "zod";
import { parseCidr } from "@postern/shared";
import { parseLicensePublicKeys } from "../services/licensing/keys.ts";

/** POSTERN_AGENT_TOKEN_HOURS: hours an agent install token stays valid (default 24, more than 0, at most 8760). */
export const AgentTokenHoursSchema = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? "24" : v))
  .refine(
    (v) => /^\d+(\.\d+)?$/.test(v.trim()) && Number(v) > 0 && Number(v) <= 8760,
    "must be hours between 0 and 8760",
  )
  .transform(Number);

/**
 * The agent token lifetime of the environment in milliseconds (POSTERN_AGENT_TOKEN_HOURS).
 * @throws Error naming the variable when it is malformed.
 */
export function agentTokenLifetimeMs(env: NodeJS.ProcessEnv): number {
  const r = AgentTokenHoursSchema.safeParse(env["POSTERN_AGENT_TOKEN_HOURS"]);
  if (!r.success) throw new Error(`POSTERN_AGENT_TOKEN_HOURS: ${r.error.issues[0]?.message ?? "invalid"}`);
  return r.data * 3_600_000;
}

/** The non-empty, trimmed items of a comma-separated variable. */
function commaList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const Schema = z
  .object({
    POSTERN_DATA_DIR: z.string().min(1).default("./data"),
    POSTERN_DATABASE_URL: z
      .string()
      .default("")
      .refine(
        (v) => v === "" || /^postgres(ql)?:\/\/[^\s]+$/.test(v),
        "must be a postgres:// URL (postgres://user:password@host:port/database)",
      ),
    POSTERN_LISTEN: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, "must be host:port")
      .default("127.0.0.1:8080"),
    POSTERN_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    POSTERN_TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform(commaList)
      .refine(
        (list) => list.every((e) => parseCidr(e.includes("/") ? e : `${e}/${e.includes(":") ? 128 : 32}`) !== null),
        "must be IPs or CIDRs separated by commas",
      ),
    POSTERN_LICENSE_PUBLIC_KEYS: z
      .string()
      .default("")
      .transform(commaList)
      .superRefine((list, ctx) => {
        try {
          parseLicensePublicKeys(list);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
        }
      }),
    POSTERN_DISCOVERY_PORTS: z
      .string()
      .default("")
      .transform(commaList)
      .refine(
        (list) => list.every((p) => /^\d{1,5}$/.test(p) && Number(p) >= 1 && Number(p) <= 65535),
        "must be TCP ports (1-65535) separated by commas",
      )
      .refine((list) => new Set(list.map(Number)).size === list.length, "must not repeat a port")
      .transform((list) => list.map(Number)),
    POSTERN_AGENT_TOKEN_HOURS: AgentTokenHoursSchema,
    POSTERN_DISCOVERY_TLS_CERT: z.string().default(""),
    POSTERN_DISCOVERY_TLS_KEY: z.string().default(""),
    POSTERN_TLS: z.enum(["off", "self-signed"], { message: 'must be "off" or "self-signed"' }).default("off"),
    POSTERN_TLS_CERT: z.string().default(""),
    POSTERN_TLS_KEY: z.string().default(""),
    POSTERN_METRICS_TOKEN: z
      .string()
      .default("")
      .refine((v) => v === "" || (v.length >= 16 && !/\s/.test(v)), "must be at least 16 characters, no spaces"),
  })
  .refine((c) => (c.POSTERN_DISCOVERY_TLS_CERT === "") === (c.POSTERN_DISCOVERY_TLS_KEY === ""), {
    message: "set both POSTERN_DISCOVERY_TLS_CERT and POSTERN_DISCOVERY_TLS_KEY, or neither",
    path: ["POSTERN_DISCOVERY_TLS_CERT"],
  })
  .refine((c) => (c.POSTERN_TLS_CERT === "") === (c.POSTERN_TLS_KEY === ""), {
    message: "set both POSTERN_TLS_CERT and POSTERN_TLS_KEY, or neither",
    path: ["POSTERN_TLS_CERT"],
  })
  .refine((c) => c.POSTERN_TLS_CERT === "" || c.POSTERN_TLS !== "self-signed", {
    message: 'POSTERN_TLS "self-signed" and a certificate file exclude each other',
    path: ["POSTERN_TLS"],
  });

/** How the main listener serves: plain http, a generated self-signed certificate, or PEM files. */
export type TlsConfig =
  | { readonly mode: "off" }
  | { readonly mode: "self-signed" }
  | { readonly mode: "files"; readonly certFile: string; readonly keyFile: string };

/** The validated server configuration. */
export interface ServerConfig {
  readonly dataDir: string;
  /** PostgreSQL URL (POSTERN_DATABASE_URL); undefined: SQLite in the data directory. */
  readonly databaseUrl?: string;
  readonly listen: string;
  readonly logLevel: string;
  readonly trustedProxies: readonly string[];
  /** Trusted licence signing keys (base64 raw 32-byte or SPKI DER Ed25519). */
  readonly licensePublicKeys: readonly string[];
  /** Lifetime of agent install tokens in hours. */
  readonly agentTokenHours: number;
  /** Extra IP-discovery listeners: their ports and, for https, the PEM file paths (http/discovery.ts). */
  readonly discovery: {
    readonly ports: readonly number[];
    readonly tls?: { readonly certFile: string; readonly keyFile: string };
  };
  /** TLS of the main listener (POSTERN_TLS, POSTERN_TLS_CERT, POSTERN_TLS_KEY). */
  readonly tls: TlsConfig;
  /** Bearer token for /metrics from other hosts than loopback; undefined: loopback only. */
  readonly metricsToken?: string;
}

/** A loaded configuration, or every problem found in it (one line each, naming the variable or file key). */
export type ConfigResult = { ok: true; value: ServerConfig } | { ok: false; problems: string[] };

/**
 * Reads the configuration file, if one is named (`path`, else POSTERN_CONFIG), and the environment,
 * which overrides the file key by key. Never throws: problems of the file and of the values are listed.
 */
export function readServerConfig(env: NodeJS.ProcessEnv, path?: string): ConfigResult {
  const file = path ?? env["POSTERN_CONFIG"];
  if (file === undefined || file === "") return loadServerConfig(env);
  const fromFile = readConfigFile(file);
  const merged: NodeJS.ProcessEnv = { ...fromFile.values };
  const labels: Record<string, string> = { ...fromFile.labels };
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith("POSTERN_") || v === undefined) continue;
    merged[k] = v;
    delete labels[k];
  }
  const r = loadServerConfig(merged, labels);
  if (fromFile.problems.length === 0) return r;
  return { ok: false, problems: [...fromFile.problems, ...(r.ok ? [] : r.problems)] };
}

/**
 * Parses the environment (with `labels` naming the file key a variable came from, for problems);
 * returns the frozen config or a readable list of problems.
 */
export function loadServerConfig(env: NodeJS.ProcessEnv, labels: Record<string, string> = {}): ConfigResult {
  const r = Schema.safeParse(env);
  if (!r.success)
    return {
      ok: false,
      problems: r.error.issues.map((i) => {
        const name = i.path.join(".");
        return `${labels[name] ?? name}: ${i.message}`;
      }),
    };
  return {
    ok: true,
    value: Object.freeze({
      dataDir: resolve(r.data.POSTERN_DATA_DIR),
      ...(r.data.POSTERN_DATABASE_URL !== "" ? { databaseUrl: r.data.POSTERN_DATABASE_URL } : {}),
      listen: r.data.POSTERN_LISTEN,
      logLevel: r.data.POSTERN_LOG_LEVEL,
      trustedProxies: Object.freeze(r.data.POSTERN_TRUSTED_PROXIES),
      licensePublicKeys: Object.freeze(r.data.POSTERN_LICENSE_PUBLIC_KEYS),
      agentTokenHours: r.data.POSTERN_AGENT_TOKEN_HOURS,
      discovery: discoveryConfig(r.data),
      tls: tlsConfig(r.data),
      ...(r.data.POSTERN_METRICS_TOKEN !== "" ? { metricsToken: r.data.POSTERN_METRICS_TOKEN } : {}),
    }),
  };
}

function tlsConfig(d: {
  POSTERN_TLS: "off" | "self-signed";
  POSTERN_TLS_CERT: string;
  POSTERN_TLS_KEY: string;
}): TlsConfig {
  if (d.POSTERN_TLS_CERT !== "")
    return Object.freeze({ mode: "files", certFile: resolve(d.POSTERN_TLS_CERT), keyFile: resolve(d.POSTERN_TLS_KEY) });
  return Object.freeze({ mode: d.POSTERN_TLS });
}

function discoveryConfig(d: {
  POSTERN_DISCOVERY_PORTS: number[];
  POSTERN_DISCOVERY_TLS_CERT: string;
  POSTERN_DISCOVERY_TLS_KEY: string;
}): ServerConfig["discovery"] {
  const ports = Object.freeze(d.POSTERN_DISCOVERY_PORTS);
  if (d.POSTERN_DISCOVERY_TLS_CERT === "") return Object.freeze({ ports });
  return Object.freeze({
    ports,
    tls: Object.freeze({
      certFile: resolve(d.POSTERN_DISCOVERY_TLS_CERT),
      keyFile: resolve(d.POSTERN_DISCOVERY_TLS_KEY),
    }),
  });
}
