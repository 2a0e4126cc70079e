/**
 * `postern-server`: reads POSTERN_DATA_DIR (default ./data), POSTERN_LISTEN (host:port, default
 * 127.0.0.1:8080), POSTERN_LOG_LEVEL and the rest of config.ts, then serves until SIGTERM/SIGINT.
 */
import { loadServerConfig } from "./config.ts";
import { startServer } from "./server.ts";

const config = loadServerConfig(process.env);
if (!config.ok) {
  process.stderr.write(`postern-server: bad configuration:\n${config.problems.map((p) => `  - ${p}`).join("\n")}\n`);
  process.exitCode = 2;
} else {
  try {
    const server = await startServer({
      dataDir: config.value.dataDir,
      listen: config.value.listen,
      logLevel: config.value.logLevel,
      trustedProxies: config.value.trustedProxies,
      licensePublicKeys: config.value.licensePublicKeys,
      discovery: config.value.discovery,
      agentTokenHours: config.value.agentTokenHours,
    });
    const stop = () => {
      void server.close().then(() => process.stderr.write("postern-server: stopped\n"));
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  } catch (err) {
    process.stderr.write(`postern-server: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
