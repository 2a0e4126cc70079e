/**
 * `postern-agent` command line (docs/reference.md design "Agent protocol"):
 *
 *   postern-agent enrol --server URL --token TOKEN --config FILE [--server-fingerprint SHA256] [--also-server URL]... [--force]
 *                       [--enable-scripts] [--haproxy-socket PATH]
 *   postern-agent enrol --server URL --api-key KEY --name NAME --config FILE [...]   (scope agent.register)
 *   postern-agent run --config FILE
 *   postern-agent --version | --help | <command> --help
 *
 * The server must be https:// (http:// only to loopback). Messages go to stderr (pino logs too), data to stdout. Exit codes: 0 success, 1 failure or usage
 * error, 78 unusable config file (sysexits EX_CONFIG, so systemd's RestartPreventExitStatus can stop
 * restarting a daemon that cannot start). SIGTERM and SIGINT stop `run` cleanly through one AbortController.
 */
import { Command, CommanderError, Option } from "commander";
import { pino } from "pino";
import { detectCapabilities } from "./capabilities.ts";
import { ConfigError, insecureServerReason, loadConfig } from "./config.ts";
import { AGENT_VERSION, startAgent } from "./daemon.ts";
import { ExecaRunner } from "./process/execa-runner.ts";

/** Exit code of an unusable config file (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

function fail(message: string, code = 1): void {
  process.stderr.write(`postern-agent: ${message}\n`);
  process.exitCode = code;
}

async function runEnrol(opts: {
  server: string;
  token?: string;
  apiKey?: string;
  name?: string;
  config: string;
  force?: boolean;
  enableScripts?: boolean;
  haproxySocket?: string;
  serverFingerprint?: string;
  alsoServer?: string[];
}): Promise<void> {
  if ((opts.token === undefined) === (opts.apiKey === undefined))
    return fail("give either --token (one-time agent token) or --api-key with --name (scope agent.register)");
  if (opts.apiKey !== undefined && opts.name === undefined)
    return fail("--api-key needs --name (the new agent's name)");
  if (opts.token !== undefined && opts.name !== undefined)
    return fail("--name goes with --api-key; a token enrols the agent the admin created");
  for (const server of [opts.server, ...(opts.alsoServer ?? [])]) {
    const insecure = insecureServerReason(server);
    if (insecure) return fail(insecure);
  }
  const runner = new ExecaRunner();
  const scriptsEnabled = opts.enableScripts ?? false;
  const capabilities = await detectCapabilities({
    runner,
    scriptsEnabled,
    ...(opts.haproxySocket !== undefined ? { haproxySocket: opts.haproxySocket } : {}),
  });
  // Loaded here, not at start: enrolment's HTTP client (undici, ~1 MB of code) is never needed by `run`.
  const { enrol, EnrolError } = await import("./enrol.ts");
  try {
    const result = await enrol({
      server: opts.server,
      ...(opts.token !== undefined ? { token: opts.token } : {}),
      ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey, name: opts.name ?? "" } : {}),
      configPath: opts.config,
      capabilities,
      version: AGENT_VERSION,
      force: opts.force ?? false,
      ...(opts.serverFingerprint !== undefined ? { serverFingerprint: opts.serverFingerprint } : {}),
      settings: {
        scriptsEnabled,
        ...(opts.haproxySocket !== undefined ? { haproxySocket: opts.haproxySocket } : {}),
        ...(opts.alsoServer?.length ? { servers: opts.alsoServer } : {}),
      },
    });
    process.stderr.write(`postern-agent: enrolled as "${result.name}"; config written to ${result.configPath}\n`);
    process.stdout.write(`${result.agentId}\n`);
  } catch (err) {
    if (err instanceof EnrolError) return fail(err.message);
    throw err;
  }
}

async function runDaemon(opts: { config: string }): Promise<void> {
  let config;
  try {
    config = await loadConfig(opts.config);
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message, EXIT_CONFIG);
    throw err;
  }
  const logger = pino(
    {
      level: config.logLevel,
      base: { name: "postern-agent" },
      redact: {
        paths: ["signingPrivateKey", "boxSecretKey", "*.signingPrivateKey", "*.boxSecretKey"],
        censor: "[redacted]",
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, "stopping");
    controller.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    const agent = await startAgent({ config, logger, signal: controller.signal });
    if (!controller.signal.aborted) {
      await new Promise<void>((resolve) =>
        controller.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
    }
    await agent.stop();
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

/** Builds the commander program (`exitOverride` everywhere, so nothing calls process.exit). */
export function buildProgram(): Command {
  const program = new Command("postern-agent")
    .description("Postern agent: enforces just-in-time network access on this host")
    .version(AGENT_VERSION, "-V, --version", "print the version")
    .exitOverride()
    .showHelpAfterError();

  program
    .command("enrol")
    .description("enrol this host with a Postern server and write the agent config (mode 0600)")
    .requiredOption(
      "--server <url>",
      "base URL of the server, e.g. https://postern.example.com (http:// only to loopback)",
    )
    .addOption(new Option("--token <token>", "one-time agent token from the admin console").env("POSTERN_AGENT_TOKEN"))
    .addOption(
      new Option("--api-key <key>", "API key with scope agent.register: creates the agent --name and enrols it").env(
        "POSTERN_AGENT_API_KEY",
      ),
    )
    .option("--name <name>", "name of the agent to create (with --api-key)")
    .option(
      "--server-fingerprint <sha256>",
      "SHA-256 fingerprint of the server's self-signed TLS certificate: trust that certificate alone",
    )
    .option(
      "--also-server <url>",
      "another base URL of the same installation (a replica or a second load balancer), tried in rotation after --server; repeatable",
      (url: string, previous: string[] = []) => [...previous, url],
    )
    .requiredOption("--config <file>", "where to write the agent config")
    .option("--force", "replace an existing config (the old identity is lost)")
    .option("--enable-scripts", "allow custom scripts on this agent (off by default)")
    .option("--haproxy-socket <path>", "HAProxy runtime API socket to report")
    .exitOverride()
    .action(runEnrol);

  program
    .command("run")
    .description("run the agent daemon until SIGTERM/SIGINT")
    .requiredOption("--config <file>", "the agent config written by enrol")
    .exitOverride()
    .action(runDaemon);

  return program;
}

/** Runs the CLI with `argv` (as process.argv: node, script, args...). Sets process.exitCode; never exits. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    fail(err instanceof Error ? err.message : String(err));
  }
}

await main(process.argv);
