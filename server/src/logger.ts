/**
 * The server's logger (pino, JSON lines to stderr). `createLogger` takes the level from config.
 */
import { pino } from "pino";

/** The logger type passed around the server. */
export type Logger = pino.Logger;

/** Creates the root logger at `level` ("info", "debug", "silent", ...). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: "postern-server" } }, pino.destination(2));
}

/**
 * Applies the DebugMode setting (docs/reference.md admin-console §2 Settings, Logging "debug mode") to `log` and its
 * children, live: "debug" while on — or `base` when `base` is already more verbose (trace) — and
 * `base` (the configured POSTERN_LOG_LEVEL) while off.
 */
export function applyDebugMode(log: Logger, on: boolean, base: string): void {
  const values = log.levels.values;
  const debug = values["debug"] ?? 20;
  log.level = on && (values[base] ?? Infinity) > debug ? "debug" : base;
}
