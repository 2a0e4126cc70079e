/**
 * Server configuration from the environment, parsed and validated once into a frozen object.
 * POSTERN_DATA_DIR (default ./data), POSTERN_LISTEN (host:port, default 127.0.0.1:8080),
 * POSTERN_LOG_LEVEL (default info), POSTERN_TRUSTED_PROXIES (comma-separated IPs or CIDRs of reverse
 * proxies whose X-Forwarded-For is believed; default none), POSTERN_LICENSE_PUBLIC_KEYS (comma-separated
 * Ed25519 public keys trusted to sign licence keys, each base64 of the raw 32 bytes or of the SPKI DER;
 * default none), POSTERN_DISCOVERY_PORTS (comma-separated TCP ports of extra IP-discovery listeners
 * answering GET /api/ip, e.g. 443,222,3389,8000; default none; see http/discovery.ts),
 * POSTERN_DISCOVERY_TLS_CERT and POSTERN_DISCOVERY_TLS_KEY (PEM files: those listeners serve https;
 * both or neither), POSTERN_AGENT_TOKEN_HOURS (lifetime of agent install tokens in hours, default 24,
 * at most 8760; `postern agent create` reads it too).
 */
import { resolve } from "node:path";
import { z } from "zod";
import { parseCidr } from "@postern/shared";
import { parseLicensePublicKeys } from "./services/licensing/keys.ts";

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

const Schema = z
  .object({
    POSTERN_DATA_DIR: z.string().min(1).default("./data"),
    POSTERN_LISTEN: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, "must be host:port")
      .default("127.0.0.1:8080"),
    POSTERN_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    POSTERN_TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine(
        (list) => list.every((e) => parseCidr(e.includes("/") ? e : `${e}/${e.includes(":") ? 128 : 32}`) !== null),
        "must be IPs or CIDRs separated by commas",
      ),
    POSTERN_LICENSE_PUBLIC_KEYS: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      )
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
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine(
        (list) => list.every((p) => /^\d{1,5}$/.test(p) && Number(p) >= 1 && Number(p) <= 65535),
        "must be TCP ports (1-65535) separated by commas",
      )
      .refine((list) => new Set(list.map(Number)).size === list.length, "must not repeat a port")
      .transform((list) => list.map(Number)),
    POSTERN_AGENT_TOKEN_HOURS: AgentTokenHoursSchema,
    POSTERN_DISCOVERY_TLS_CERT: z.string().default(""),
    POSTERN_DISCOVERY_TLS_KEY: z.string().default(""),
  })
  .refine((c) => (c.POSTERN_DISCOVERY_TLS_CERT === "") === (c.POSTERN_DISCOVERY_TLS_KEY === ""), {
    message: "set both POSTERN_DISCOVERY_TLS_CERT and POSTERN_DISCOVERY_TLS_KEY, or neither",
    path: ["POSTERN_DISCOVERY_TLS_CERT"],
  });

/** The validated server configuration. */
export interface ServerConfig {
  readonly dataDir: string;
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
}

/** Parses the environment; returns the frozen config or a readable list of problems. */
export function loadServerConfig(
  env: NodeJS.ProcessEnv,
): { ok: true; value: ServerConfig } | { ok: false; problems: string[] } {
  const r = Schema.safeParse(env);
  if (!r.success) return { ok: false, problems: r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  return {
    ok: true,
    value: Object.freeze({
      dataDir: resolve(r.data.POSTERN_DATA_DIR),
      listen: r.data.POSTERN_LISTEN,
      logLevel: r.data.POSTERN_LOG_LEVEL,
      trustedProxies: Object.freeze(r.data.POSTERN_TRUSTED_PROXIES),
      licensePublicKeys: Object.freeze(r.data.POSTERN_LICENSE_PUBLIC_KEYS),
      agentTokenHours: r.data.POSTERN_AGENT_TOKEN_HOURS,
      discovery: discoveryConfig(r.data),
    }),
  };
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
