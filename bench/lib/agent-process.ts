/**
 * The agent as its own process, as users run it (systemd's postern-agent.service): enrolled through
 * the server's real endpoint (`enrol()` of agent/src/enrol.ts, what `postern-agent enrol` does), then
 * the REAL entry run as a child process: `node agent/src/main.ts run --config FILE` from source, or
 * the program tree as packaged (scripts/package/trees.ts, the same esbuild call as `npm run
 * package`: `node agent/agent.mjs run`), optionally with the node flags and environment of
 * packaging/bin/postern-agent (`--agent-packaged` of bench/memory.ts and bench/grant-latency.ts).
 * Stopped by its PID (SIGTERM, SIGKILL after a grace period).
 *
 * `pathPrefix` puts a folder first on the agent's PATH, so that the commands it starts by name
 * (`ipset`, `nft`) can be wrappers: bench/grant-latency.ts runs them inside its network namespace
 * that way (`agentNetnsShims`).
 */
import { spawn } from "node:child_process";
import { accessSync, chmodSync, constants, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_VERSION } from "../../agent/src/daemon.ts";
import { enrol } from "../../agent/src/enrol.ts";
import type { AgentCapabilities } from "../../shared/src/index.ts";
import { stageAgentTree } from "../../scripts/package/trees.ts";
import { REPO_ROOT, captureTail, stopChild } from "../server-process.ts";

/** How a program is started: the entry file, Node/V8 flags before it, environment it gets. */
export interface Launch {
  /** The entry file (a path relative to the repository root, or absolute). */
  readonly entry: string;
  /** Node/V8 flags put before the entry. */
  readonly nodeArgs: readonly string[];
  /** Variables added to the environment. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The node flags and environment a launcher of packaging/bin/ (`postern-agent`, `postern-server`)
 * gives its program: the flags between `node` and `<bundle>.mjs` on its `exec` line, and each
 * `export NAME="${NAME:-value}"` default.
 * @throws Error when the script has no such `exec` line.
 */
export function packagedLaunch(launcher: string, bundle: string): { nodeArgs: string[]; env: Record<string, string> } {
  const script = readFileSync(join(REPO_ROOT, "packaging/bin", launcher), "utf8");
  const exec = new RegExp(`^exec \\S+/node((?: --?\\S+)*) \\S+/${bundle}\\.mjs "\\$@"$`, "m").exec(script);
  if (!exec) throw new Error(`packaging/bin/${launcher}: no \`exec .../node FLAGS .../${bundle}.mjs "$@"\` line`);
  const env: Record<string, string> = {};
  for (const m of script.matchAll(/^export (\w+)="\$\{\1:-([^}]*)\}"$/gm)) env[m[1] ?? ""] = m[2] ?? "";
  return { nodeArgs: (exec[1] ?? "").split(" ").filter(Boolean), env };
}

/** One line saying how a program runs as packaged (node flags, environment). */
export function describeLaunch(
  name: string,
  launch: { nodeArgs: readonly string[]; env: Record<string, string> },
): string {
  const env = Object.entries(launch.env).map(([k, v]) => `${k}=${v}`);
  return `${name} as packaged: node ${[...launch.nodeArgs, ...env].join(" ") || "(no flags, no variables)"}`;
}

/**
 * How to start the agent: from source (`agent/src/main.ts`), or with `bundle` from its program tree
 * as packaged, written into `treeDir`/agent first (esbuild; `splitting` false bundles one file
 * without chunks), and with `packaged` also packaging/bin/postern-agent's flags and environment.
 * @throws Error when bundling fails or the launcher cannot be read.
 */
export async function agentLaunch(opts: {
  readonly bundle: boolean;
  readonly packaged: boolean;
  readonly treeDir: string;
  readonly splitting?: boolean;
}): Promise<Launch> {
  const bundle = opts.bundle || opts.packaged;
  if (bundle) await stageAgentTree(REPO_ROOT, join(opts.treeDir, "agent"), { splitting: opts.splitting ?? true });
  const packaged = opts.packaged ? packagedLaunch("postern-agent", "agent") : { nodeArgs: [], env: {} };
  return {
    entry: bundle ? join(opts.treeDir, "agent", "agent.mjs") : "agent/src/main.ts",
    nodeArgs: packaged.nodeArgs,
    env: packaged.env,
  };
}

/**
 * Enrols an agent through the server's real endpoint with its one-time `token` (from POST
 * /api/admin/agents, or seeded) and writes its config to `configPath` (mode 0600). `settings` go into
 * the config (haproxySocket, logLevel, scriptsEnabled, useSudo — false unless given, ...).
 * @throws EnrolError when the server refuses the token.
 */
export async function enrolAgent(opts: {
  readonly server: string;
  readonly token: string;
  readonly configPath: string;
  readonly capabilities: AgentCapabilities;
  readonly settings?: Record<string, unknown>;
}): Promise<void> {
  await enrol({
    server: opts.server,
    token: opts.token,
    configPath: opts.configPath,
    capabilities: opts.capabilities,
    version: AGENT_VERSION,
    settings: { useSudo: false, ...opts.settings },
  });
}

/** A running `postern-agent run` child process. */
export interface AgentProcess {
  readonly pid: number;
  /** The tail of what it printed (stderr: its pino log). */
  output(): string;
  /** The exit code or signal once it has exited, else null. */
  exited(): number | string | null;
  /** SIGTERM by PID (SIGKILL after 10 s); waits for the exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `node [launch.nodeArgs] [extraNodeArgs] ENTRY run --config configPath` in the repository
 * root with `launch.env` and `env` added, and `pathPrefix` (when given) first on its PATH. Does not
 * wait for it to connect.
 * @throws Error when the process cannot be started.
 */
export function startAgentProcess(opts: {
  readonly configPath: string;
  readonly launch: Launch;
  readonly extraNodeArgs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly pathPrefix?: string;
}): AgentProcess {
  const args = [
    ...opts.launch.nodeArgs,
    ...(opts.extraNodeArgs ?? []),
    opts.launch.entry,
    "run",
    "--config",
    opts.configPath,
  ];
  const env: Record<string, string | undefined> = { ...process.env, ...opts.launch.env, ...opts.env };
  if (opts.pathPrefix) env["PATH"] = `${opts.pathPrefix}:${env["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"}`;
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const output = captureTail(child);
  if (child.pid === undefined) throw new Error(`the agent did not start: ${output()}`);
  return {
    pid: child.pid,
    output,
    exited: () => child.exitCode ?? child.signalCode,
    stop: () => stopChild(child),
  };
}

/**
 * Writes wrappers named `commands` (e.g. `ipset`, `nft`) into `dir` that run the real command (found
 * on this process's PATH now) inside network namespace `ns`: `exec ip netns exec NS /path/cmd "$@"`.
 * With `dir` first on the agent's PATH (`startAgentProcess`' `pathPrefix`) the agent's commands act on
 * the namespace while the agent process itself stays in the host's, where the server's loopback
 * address and HAProxy's unix socket are. The wrapper is one `exec` more when a command starts; the
 * long-lived `ipset -exist -` process of the ipset backend starts once.
 * @throws Error when `ip` or one of `commands` is not found.
 */
export function agentNetnsShims(dir: string, ns: string, commands: readonly string[]): void {
  const find = (cmd: string): string => {
    for (const d of (process.env["PATH"] ?? "").split(":").concat(["/usr/sbin", "/sbin", "/usr/bin", "/bin"])) {
      const p = join(d, cmd);
      try {
        accessSync(p, constants.X_OK);
        return p;
      } catch {
        // not here
      }
    }
    throw new Error(`${cmd} not found on PATH`);
  };
  const ip = find("ip");
  for (const cmd of commands) {
    const file = join(dir, cmd);
    writeFileSync(file, `#!/bin/sh\nexec ${ip} netns exec ${ns} ${find(cmd)} "$@"\n`);
    chmodSync(file, 0o755);
  }
}
