/**
 * Detects what this agent can enforce (design.md "Agent protocol" → Capabilities; admin-console §3):
 * the OS release, ipset (command available, usable as root / CAP_NET_ADMIN or through `sudo -n`, the
 * sets with their family), the HAProxy runtime socket and whether custom scripts are enabled.
 */
import { access, readFile } from "node:fs/promises";
import type { AgentCapabilities } from "@postern/shared";
import type { CommandRunner } from "./process/runner.ts";

/** Runtime socket paths tried, in order, when no HAProxy socket is configured. */
export const DEFAULT_HAPROXY_SOCKETS: readonly string[] = [
  "/run/haproxy/admin.sock",
  "/var/run/haproxy.sock",
  "/var/run/haproxy/admin.sock",
];

/** How this agent may run ipset: directly (root or CAP_NET_ADMIN), through `sudo -n`, or not at all. */
export type IpsetAccess = "direct" | "sudo" | "none";

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
 * Parses `ipset list -t` (headers of every set): each set's name and family. Sets without a family
 * (e.g. `list:set`) are left out.
 */
export function parseIpsetSets(text: string): { name: string; address_family: "inet" | "inet6" }[] {
  const out: { name: string; address_family: "inet" | "inet6" }[] = [];
  let name: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const n = /^Name:\s*(\S+)/.exec(line);
    if (n?.[1]) {
      name = n[1];
      continue;
    }
    const h = /^Header:.*\bfamily (inet6?)\b/.exec(line);
    if (h?.[1] && name) {
      out.push({ name, address_family: h[1] === "inet6" ? "inet6" : "inet" });
      name = null;
    }
  }
  return out;
}

/**
 * Finds how ipset can be run: `direct` when root or when `ipset list -n` works unprivileged
 * (CAP_NET_ADMIN), else `sudo` when `sudo -n ipset list -n` works, else `none`.
 * `available` is false when the ipset command cannot be started at all.
 */
export async function detectIpsetAccess(
  runner: CommandRunner,
  isRoot: boolean,
  timeoutMs = 5_000,
): Promise<{ available: boolean; access: IpsetAccess }> {
  let direct: { exitCode: number };
  try {
    direct = await runner.run("ipset", ["list", "-n"], { timeoutMs });
  } catch {
    return { available: false, access: "none" };
  }
  if (isRoot || direct.exitCode === 0) return { available: true, access: "direct" };
  try {
    const viaSudo = await runner.run("sudo", ["-n", "ipset", "list", "-n"], { timeoutMs });
    if (viaSudo.exitCode === 0) return { available: true, access: "sudo" };
  } catch {
    // sudo is not installed
  }
  return { available: true, access: "none" };
}

/**
 * Detects this agent's capabilities. Never throws: a probe that fails reports the capability as absent.
 * `os-release` is omitted when the file cannot be read; `haproxy` when no socket is configured or found.
 */
export async function detectCapabilities(options: DetectCapabilitiesOptions): Promise<AgentCapabilities> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const caps: AgentCapabilities = {};

  const osText = await readFile(options.osReleasePath ?? "/etc/os-release", "utf8").catch(() => null);
  if (osText !== null) {
    const os = parseOsRelease(osText);
    caps["os-release"] = { NAME: os.NAME ?? "Linux", VERSION: os.VERSION ?? os.VERSION_ID ?? "" };
  }

  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const ipset = await detectIpsetAccess(options.runner, isRoot, timeoutMs);
  let ipsets: { name: string; address_family: "inet" | "inet6" }[] = [];
  if (ipset.access !== "none") {
    const args = ["list", "-t"];
    const r = await (
      ipset.access === "sudo"
        ? options.runner.run("sudo", ["-n", "ipset", ...args], { timeoutMs })
        : options.runner.run("ipset", args, { timeoutMs })
    ).catch(() => null);
    if (r && r.exitCode === 0) ipsets = parseIpsetSets(r.stdout);
  }
  caps.ipset = { ipsets, command_available: ipset.available, sudo_enabled: ipset.access !== "none" };

  const socket =
    options.haproxySocket ?? (await firstExisting(options.haproxySocketCandidates ?? DEFAULT_HAPROXY_SOCKETS));
  if (socket) caps.haproxy = { socket_location: socket };

  caps.script = { enabled: options.scriptsEnabled };
  return caps;
}

async function firstExisting(paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) {
    if (
      await access(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return undefined;
}
