/**
 * The agent's enforcement drivers: one folder per backend type, registered in `registry.ts`.
 */
import type { CommandRunner } from "../process/runner.ts";
import type { Backend } from "./backend.ts";
import { HaproxyBackend } from "./haproxy/driver.ts";
import type { HaproxyBackendOptions } from "./haproxy/driver.ts";
import { IpsetBackend } from "./ipset/driver.ts";

export type { Backend, EntryOutcome } from "./backend.ts";
export type { Driver, DriverContext, DriverDefinition, DriverResolver } from "./driver.ts";
export { DRIVERS, DriverSet, StaticDrivers } from "./registry.ts";
export { HaproxyBackend } from "./haproxy/driver.ts";
export { IpsetBackend } from "./ipset/driver.ts";

/** Options of `createBackends`. */
export interface CreateBackendsOptions {
  /** Runs external commands (ipset). */
  readonly runner: CommandRunner;
  /** Run ipset through `sudo -n` (when the agent is not root and has no CAP_NET_ADMIN). */
  readonly useSudo: boolean;
  /** Timeouts of the HAProxy runtime API (milliseconds); defaults as in `HaproxyBackend`. */
  readonly haproxy?: HaproxyBackendOptions;
}

/**
 * Fixed ipset and HAProxy backends, one shared instance per type (benchmarks and tests that wrap the
 * calls); the daemon itself creates a driver per backend through `DriverSet`.
 */
export function createBackends(options: CreateBackendsOptions): Map<string, Backend> {
  const backends = new Map<string, Backend>();
  const list: Backend[] = [
    new HaproxyBackend(options.haproxy ?? {}),
    new IpsetBackend({ runner: options.runner, useSudo: options.useSudo }),
  ];
  for (const b of list) backends.set(b.type, b);
  return backends;
}
