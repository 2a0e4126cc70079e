/**
 * `postern-server [--config FILE] [--check-config]`: reads the configuration file (`--config`, else
 * POSTERN_CONFIG; none when neither is given) and the environment, which overrides it (config/), then
 * serves until SIGTERM/SIGINT. SIGHUP reads the TLS certificate and key again. `--check-config`
 * validates and exits: 0 when the configuration is good, 2 with every problem listed otherwise.
 * Exit codes: 0 stopped cleanly, 1 could not start, 2 bad configuration or usage.
 */
import { parseArgs } from "node:util";
import { readServerConfig } from "./config/index.ts";

const USAGE = `usage: postern-server [--config FILE] [--check-config]

  --config FILE    TOML configuration file (else POSTERN_CONFIG); POSTERN_* variables override it
  --check-config   validate the configuration, list every problem, and exit (0 good, 2 bad)
  --help           this text
`;

function parse(): { config?: string; check: boolean } | undefined {
  try {
    const { values } = parseArgs({
      options: {
        config: { type: "string" },
        "check-config": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return undefined;
    }
    return { ...(values.config !== undefined ? { config: values.config } : {}), check: values["check-config"] };
  } catch (err) {
    process.stderr.write(`postern-server: ${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = parse();
  if (!args) return;
  const config = readServerConfig(process.env, args.config);
  if (!config.ok) {
    process.stderr.write(`postern-server: bad configuration:\n${config.problems.map((p) => `  - ${p}`).join("\n")}\n`);
    process.exitCode = 2;
    return;
  }
  if (args.check) {
    process.stdout.write("postern-server: configuration OK\n");
    return;
  }
  const c = config.value;
  // Loaded only to serve: --check-config stays quick.
  const { startServer } = await import("./server.ts");
  const server = await startServer({
    dataDir: c.dataDir,
    ...(c.databaseUrl !== undefined ? { databaseUrl: c.databaseUrl } : {}),
    listen: c.listen,
    logLevel: c.logLevel,
    trustedProxies: c.trustedProxies,
    licensePublicKeys: c.licensePublicKeys,
    discovery: c.discovery,
    agentTokenHours: c.agentTokenHours,
    tls: c.tls,
    ...(c.metricsToken !== undefined ? { metricsToken: c.metricsToken } : {}),
  });
  if (server.tlsFingerprint)
    process.stderr.write(`postern-server: serving ${server.url}, TLS certificate SHA-256 ${server.tlsFingerprint}\n`);
  const stop = () => {
    void server.close().then(() => process.stderr.write("postern-server: stopped\n"));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.on("SIGHUP", () => {
    server.reloadTls().catch((err: unknown) => {
      process.stderr.write(
        `postern-server: TLS reload failed, keeping the old certificate: ${(err as Error).message}\n`,
      );
    });
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`postern-server: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
