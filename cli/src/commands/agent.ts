/**
 * `postern agent create NAME [--server-url URL] [--json]`: creates an agent and prints its install
 * command and one-time token (`--json`: {ID, Name, Token, InstallCommand}). The URL in the command is
 * --server-url, else the PublicURL setting, else the listen address of the configuration (https with
 * TLS on, this host's name for a wildcard address), else http://$POSTERN_LISTEN. With a self-signed
 * certificate the command pins it (services/agent-install.ts). The token expires after
 * POSTERN_AGENT_TOKEN_HOURS (or the configuration's agent_token_hours; default 24); creation is
 * refused beyond the licence's MaxMachines.
 *
 * `postern agent server-key [--json]`: prints the server's agent signing public key (what agents pin
 * as `serverPublicKey`; created in the data directory when missing), for agents enrolled before
 * the server signed its frames (docs/agent-protocol.md "Server identity").
 */
import type { Command } from "commander";
import {
  AgentService,
  agentTokenLifetimeMs,
  getSetting,
  loadOrCreateServerSigningKey,
  systemClock,
} from "@postern/server";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { tlsPinOf, selfSignedPaths } from "@postern/server";
import type { ServerConfig } from "@postern/server";
import { dataDirOf, openMigrated, output, serverConfigOf } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** The server URL agents dial (see the module comment). */
function serverUrl(flag: string | undefined, publicUrl: string, config: ServerConfig | undefined): string {
  if (flag ?? publicUrl) return (flag ?? publicUrl).replace(/\/+$/, "");
  if (!config) return `http://${process.env["POSTERN_LISTEN"] ?? "127.0.0.1:8080"}`;
  const listen = config.listen.replace(/^(0\.0\.0\.0|\[::\]|::):/, `${hostname()}:`);
  return `${config.tls.mode === "off" ? "http" : "https"}://${listen}`;
}

/** The pins of the self-signed certificate the configuration's server serves, when it has one. */
function selfSignedPin(config: ServerConfig | undefined, dataDir: string) {
  if (config?.tls.mode !== "self-signed") return undefined;
  const cert = selfSignedPaths(dataDir).cert;
  return existsSync(cert) ? tlsPinOf(readFileSync(cert, "utf8")) : undefined;
}

/** Registers the `agent` command group. */
export function registerAgent(program: Command): void {
  const agent = program.command("agent").description("manage agents");
  agent
    .command("create")
    .description("create an agent and print its install command and token")
    .argument("<name>", "unique agent name")
    .option("--server-url <url>", "URL the agent reaches this server at")
    .action(async (name: string, opts: { serverUrl?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const config = serverConfigOf();
      const tokenLifetimeMs = config ? config.agentTokenHours * 3_600_000 : agentTokenLifetimeMs(process.env);
      const database = await openMigrated(g);
      try {
        const noHub = { isConnected: () => false, disconnect: () => undefined };
        const url = serverUrl(opts.serverUrl, await getSetting(database.db, "PublicURL"), config);
        const service = new AgentService(database.db, systemClock, noHub, { tokenLifetimeMs });
        const created = await service.create(
          name,
          url,
          { adminName: "cli", ip: "" },
          selfSignedPin(config, dataDirOf(g)),
        );
        output(
          g,
          created,
          `Agent ${created.Name} created.\nToken: ${created.Token}\nInstall on the protected host:\n  ${created.InstallCommand}`,
        );
      } finally {
        await database.close();
      }
    });
  agent
    .command("server-key")
    .description("print the server's agent signing public key (the serverPublicKey agents pin)")
    .action((_opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const key = loadOrCreateServerSigningKey(dataDirOf(g)).publicKey;
      output(g, { ServerKey: key }, key);
    });
}
