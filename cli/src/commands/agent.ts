/**
 * `postern agent create NAME [--server-url URL] [--json]`: creates an agent and prints its install
 * command and one-time token (`--json`: {ID, Name, Token, InstallCommand}).
 */
import type { Command } from "commander";
import { AgentService, systemClock } from "@postern/server";
import { openMigrated, output } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** The server URL agents dial: --server-url, else POSTERN_PUBLIC_URL, else http://POSTERN_LISTEN. */
function serverUrl(flag: string | undefined): string {
  return (flag ?? process.env["POSTERN_PUBLIC_URL"] ?? `http://${process.env["POSTERN_LISTEN"] ?? "127.0.0.1:8080"}`).replace(/\/+$/, "");
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
      const database = openMigrated(g);
      try {
        const created = new AgentService(database.db, systemClock, () => false).create(name, serverUrl(opts.serverUrl), { adminName: "cli", ip: "" });
        output(g, created, `Agent ${created.Name} created.\nToken: ${created.Token}\nInstall on the protected host:\n  ${created.InstallCommand}`);
      } finally {
        database.close();
      }
    });
}
