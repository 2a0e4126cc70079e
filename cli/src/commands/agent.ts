/**
 * `postern agent create NAME [--server-url URL] [--json]`: creates an agent and prints its install
 * command and one-time token (`--json`: {ID, Name, Token, InstallCommand}). The URL in the command is
 * --server-url, else the PublicURL setting, else http://$POSTERN_LISTEN. The token expires after
 * POSTERN_AGENT_TOKEN_HOURS (default 24); creation is refused beyond the licence's MaxMachines.
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
import { dataDirOf, openMigrated, output } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** The server URL agents dial: --server-url, else the PublicURL setting, else http://POSTERN_LISTEN. */
function serverUrl(flag: string | undefined, publicUrl: string): string {
  return (flag ?? (publicUrl || `http://${process.env["POSTERN_LISTEN"] ?? "127.0.0.1:8080"}`)).replace(/\/+$/, "");
}

/** Registers the `agent` command group. */
export function registerAgent(program: Command): void {
  const agent = program.command("agent").description("manage agents");
  agent
    .command("create")
    .description("create an agent and print its install command and token")
    .argument("<name>", "unique agent name")
    .option("--server-url <url>", "URL the agent reaches this server at")
    .action((name: string, opts: { serverUrl?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const tokenLifetimeMs = agentTokenLifetimeMs(process.env);
      const database = openMigrated(g);
      try {
        const noHub = { isConnected: () => false, disconnect: () => undefined };
        const url = serverUrl(opts.serverUrl, getSetting(database.db, "PublicURL"));
        const service = new AgentService(database.db, systemClock, noHub, { tokenLifetimeMs });
        const created = service.create(name, url, {
          adminName: "cli",
          ip: "",
        });
        output(
          g,
          created,
          `Agent ${created.Name} created.\nToken: ${created.Token}\nInstall on the protected host:\n  ${created.InstallCommand}`,
        );
      } finally {
        database.close();
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
