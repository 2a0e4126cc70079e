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
