/**
 * The agent's enforcement backends, keyed by the BackendConfig type they handle.
 */
import { backendTypeOf } from "@postern/shared";
import type { Target } from "@postern/shared";
import type { CommandRunner } from "../process/runner.ts";
import type { Backend } from "./backend.ts";
import { HaproxyBackend } from "./haproxy.ts";
import type { HaproxyBackendOptions } from "./haproxy.ts";
import { IpsetBackend } from "./ipset.ts";

export type { Backend, EntryOutcome } from "./backend.ts";
export { HaproxyBackend } from "./haproxy.ts";
export { IpsetBackend } from "./ipset.ts";

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
 * Creates one backend per implemented type: a Map from the BackendConfig key ("haproxy", "ipset")
 * to its `Backend`.
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

/**
 * The backend that enforces `target`, chosen by the single key of its BackendConfig.
 * @throws Error when `backends` has none of that type, or the ACL config is for another type.
 */
export function backendFor(backends: ReadonlyMap<string, Backend>, target: Target): Backend {
  const type = backendTypeOf(target.backend);
  if (!(type in target.acl))
    throw new Error(`ACL ${target.key} has no ${type} configuration for backend ${target.backendId}`);
  const backend = backends.get(type);
  if (!backend) throw new Error(`this agent has no ${type} backend`);
  return backend;
}
