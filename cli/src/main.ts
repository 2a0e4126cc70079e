/**
 * `postern`: the operators' command line on the server box. One file per command group under
 * commands/; global --data-dir and --json; data on stdout, messages on stderr; failures set
 * process.exitCode.
 */
import { Command, CommanderError } from "commander";
import { AppError } from "@postern/server/errors";
import { registerAdmin } from "./commands/admin.ts";
import { registerAgent } from "./commands/agent.ts";
import { registerDb } from "./commands/db.ts";
import { registerUser } from "./commands/user.ts";
import { registerLicense } from "./commands/license.ts";
import { registerClient } from "./commands/client.ts";

const program = new Command("postern")
  .description("Postern operators' tool")
  .option("--data-dir <dir>", "data directory (default: $POSTERN_DATA_DIR or ./data)")
  .option("--json", "print data as JSON")
  .exitOverride()
  .showHelpAfterError();
registerDb(program);
registerAdmin(program);
registerAgent(program);
registerUser(program);
registerLicense(program);
registerClient(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode;
  } else {
    const e = err as Error;
    process.stderr.write(`postern: ${e instanceof AppError && e.extra ? `${e.err}: ${e.extra}` : e.message}\n`);
    process.exitCode = 1;
  }
}
