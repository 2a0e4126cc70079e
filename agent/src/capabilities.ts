/**
 * Detects what this agent can enforce (docs/reference.md design "Agent protocol" → Capabilities; docs/reference.md admin-console §3):
 * the OS release, then what each registered driver needs (its folder's `capability.ts`): ipset (command
 * available, sudo, sets), the HAProxy runtime socket, scripts enabled, nft and its sets.
 */
import { readFile } from "node:fs/promises";
import type { AgentCapabilities } from "@postern/shared";
import type { CommandRunner } from "./process/runner.ts";
import type { DetectContext, DriverDefinition } from "./backends/driver.ts";
import { DRIVERS } from "./backends/registry.ts";

export { DEFAULT_HAPROXY_SOCKETS } from "./backends/haproxy/capability.ts";
export { detectIpsetAccess, parseIpsetSets } from "./backends/ipset/capability.ts";
export type { IpsetAccess } from "./backends/ipset/capability.ts";

/** Options of `detectCapabilities`. */
export interface DetectCapabilitiesOptions {
  /** Runs `ipset` / `sudo`. */
  readonly runner: CommandRunner;
  /** Whether the agent's configuration turns custom scripts on. */
  readonly scriptsEnabled: boolean;
  /** The configured HAProxy runtime socket; reported as given. Without it the default paths are probed. */
  readonly haproxySocket?: string;
  /** os-release file to read (default `/etc/os-release`). */
  readonly osReleasePath?: string;
  /** Socket paths probed when `haproxySocket` is not given (default `DEFAULT_HAPROXY_SOCKETS`). */
  readonly haproxySocketCandidates?: readonly string[];
  /** Whether the agent runs as root (default: `process.getuid() === 0`). */
  readonly isRoot?: boolean;
  /** Timeout of each probe command in milliseconds (default 5,000 ms). */
  readonly timeoutMs?: number;
  /** The drivers whose capabilities are detected (default `DRIVERS`). */
  readonly drivers?: readonly DriverDefinition[];
}

/**
 * Parses an os-release file (`KEY=value`, values optionally quoted) into a map of its keys.
 * Backslash escapes inside double quotes are resolved.
 */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(raw);
    if (!m?.[1]) continue;
    let value = (m[2] ?? "").trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1).replace(/\\(.)/g, "$1");
    else if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) value = value.slice(1, -1);
    out[m[1]] = value;
  }
  return out;
}

/**
 * Detects this agent's capabilities: the OS release, then what each registered driver reports
 * (`DRIVERS` of backends/registry.ts: ipset, haproxy, script, nftables, ...). Never throws: a probe
 * that fails reports its capability as absent. `os-release` is omitted when the file cannot be read.
 */
export async function detectCapabilities(options: DetectCapabilitiesOptions): Promise<AgentCapabilities> {
  const caps: AgentCapabilities = {};
  const osText = await readFile(options.osReleasePath ?? "/etc/os-release", "utf8").catch(() => null);
  if (osText !== null) {
    const os = parseOsRelease(osText);
    caps["os-release"] = { NAME: os.NAME ?? "Linux", VERSION: os.VERSION ?? os.VERSION_ID ?? "" };
  }
  const ctx: DetectContext = {
    runner: options.runner,
    scriptsEnabled: options.scriptsEnabled,
    isRoot: options.isRoot ?? process.getuid?.() === 0,
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.haproxySocket !== undefined ? { haproxySocket: options.haproxySocket } : {}),
    ...(options.haproxySocketCandidates !== undefined
      ? { haproxySocketCandidates: options.haproxySocketCandidates }
      : {}),
  };
  for (const definition of options.drivers ?? DRIVERS) {
    if (!definition.detect) continue;
    const found = await definition.detect(ctx).catch(() => ({}));
    Object.assign(caps, found);
  }
  return caps;
}
