/**
 * `postern admin create --username U --name N --password-stdin`: bootstraps a local admin. The
 * password is read from stdin (never from the command line) and must be 8–64 characters.
 */
import type { Command } from "commander";
import { PasswordSchema } from "@postern/shared";
import { AdminSessionService, systemClock } from "@postern/server";
import { openMigrated, output, readStdin, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** Registers the `admin` command group. */
export function registerAdmin(program: Command): void {
  const admin = program.command("admin").description("manage administrators");
  admin
    .command("create")
    .description("create a local administrator")
    .requiredOption("--username <username>", "sign-in name")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--password-stdin", "read the password from standard input")
    .action(async (opts: { username: string; name: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const password = await readStdin();
      const check = PasswordSchema.safeParse(password);
      if (!check.success) throw new Error(`password: ${check.error.issues[0]?.message ?? "invalid"}`);
      const database = await openMigrated(g);
      try {
        const id = await new AdminSessionService(database.db, systemClock).createLocalAdmin({
          userName: opts.username,
          name: opts.name,
          password,
        });
        say(`admin ${opts.username} created`);
        output(g, { ID: id, UserName: opts.username, Name: opts.name }, id);
      } finally {
        await database.close();
      }
    });
}
