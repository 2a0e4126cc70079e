/**
 * Server configuration from the environment, parsed and validated once into a frozen object.
 * POSTERN_DATA_DIR (default ./data), POSTERN_LISTEN (host:port, default 127.0.0.1:8080),
 * POSTERN_LOG_LEVEL (default info).
 */
import { resolve } from "node:path";
import { z } from "zod";

const Schema = z.object({
  POSTERN_DATA_DIR: z.string().min(1).default("./data"),
  POSTERN_LISTEN: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, "must be host:port").default("127.0.0.1:8080"),
  POSTERN_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The validated server configuration. */
export interface ServerConfig {
  readonly dataDir: string;
  readonly listen: string;
  readonly logLevel: string;
}

/** Parses the environment; returns the frozen config or a readable list of problems. */
export function loadServerConfig(env: NodeJS.ProcessEnv): { ok: true; value: ServerConfig } | { ok: false; problems: string[] } {
  const r = Schema.safeParse(env);
  if (!r.success) return { ok: false, problems: r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  return { ok: true, value: Object.freeze({ dataDir: resolve(r.data.POSTERN_DATA_DIR), listen: r.data.POSTERN_LISTEN, logLevel: r.data.POSTERN_LOG_LEVEL }) };
}
