/**
 * `postern user create --username U --name N --password-stdin [--duration MIN]`: creates a local
 * user (the same rules as POST /api/admin/users: 8–64 character password, unique user name).
 */
import type { Command } from "commander";
import { PasswordSchema, UserWriteSchema } from "@postern/shared";
import { UserService, GrantEngine, systemClock, createLogger } from "@postern/server";
import { openMigrated, output, readStdin, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** Registers the `user` command group. */
export function registerUser(program: Command): void {
  const user = program.command("user").description("manage users");
  user
    .command("create")
    .description("create a local user")
    .requiredOption("--username <username>", "sign-in name")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--password-stdin", "read the password from standard input")
    .option("--duration <minutes>", "session length in minutes", "480")
    .action(async (opts: { username: string; name: string; duration: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const password = await readStdin();
      const check = PasswordSchema.safeParse(password);
      if (!check.success) throw new Error(`password: ${check.error.issues[0]?.message ?? "invalid"}`);
      const input = UserWriteSchema.parse({
        Name: opts.name,
        UserName: opts.username,
        PlainPassword: password,
        ConfirmPassword: password,
        Duration: Number(opts.duration),
      });
      const database = await openMigrated(g);
      try {
        const engine = new GrantEngine(database.db, systemClock, createLogger("silent"));
        const id = await new UserService({ db: database.db, clock: systemClock, engine }).create(input, {
          adminName: "cli",
          ip: "",
        });
        say(`user ${opts.username} created`);
        output(g, { ID: id, UserName: opts.username, Name: opts.name }, id);
      } finally {
        await database.close();
      }
    });
}
