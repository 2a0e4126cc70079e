/**
 * `postern license`: licence keys (docs/reference.md design "Contract decisions": `base64url(JSON payload) "."
 * base64url(Ed25519 signature)`).
 * - `keygen [--out DIR]`: writes a new Ed25519 signing key to DIR/license-signing-key.pem (mode 0600,
 *   never overwritten) and prints its public key in the POSTERN_LICENSE_PUBLIC_KEYS format.
 * - `issue --key PEM --id ID --users N --overage PCT --sessions N --machines N [--expires DATE]`:
 *   prints a signed licence key. DATE is YYYY-MM-DD (valid through the end of that day, UTC) or an
 *   ISO 8601 time; without it the licence never expires.
 * - `install KEY|free`: verifies the key against POSTERN_LICENSE_PUBLIC_KEYS and installs it into the
 *   data directory's database, replacing the installed licence (audit licenseInstalled).
 * - `show`: prints the licence status (docs/reference.md admin-console §3 "License status").
 * Data goes to stdout (JSON with --json), messages to stderr; failures set process.exitCode.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { IsoTimeSchema } from "@postern/shared";
import type { LicenseStatus } from "@postern/shared";
import {
  GrantEngine,
  LicensingService,
  createLogger,
  generateLicenseSigningKey,
  parseLicensePrivateKey,
  signLicense,
  systemClock,
} from "@postern/server";
import { openMigrated, output, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** File name keygen writes the private key to. */
export const SIGNING_KEY_FILE = "license-signing-key.pem";

/** Parses a whole number option; throws an Error naming the option. */
function wholeNumber(name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value.trim())) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value.trim());
}

/**
 * Parses --expires: YYYY-MM-DD means through the end of that day (23:59:59 UTC); an ISO 8601 time is
 * taken as given. Returns ISO 8601 UTC; throws an Error otherwise.
 */
export function parseExpires(value: string): string {
  const v = value.trim();
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (day) {
    const end = new Date(`${v}T23:59:59.000Z`);
    if (Number.isNaN(end.getTime()) || end.toISOString().slice(0, 10) !== v)
      throw new Error(`--expires: no such date "${v}"`);
    return end.toISOString();
  }
  if (!IsoTimeSchema.safeParse(v).success)
    throw new Error(`--expires must be YYYY-MM-DD or an ISO 8601 time, got "${v}"`);
  return new Date(v).toISOString();
}

/** The licence status as text lines. */
function describeStatus(s: LicenseStatus, now: number): string {
  if (s.State === "unlicensed") return `State: unlicensed (no licence installed)\nMachines: ${s.MachineCount}`;
  const days = s.Expires === null ? null : Math.floor((Date.parse(s.Expires) - now) / 86_400_000);
  const expires =
    s.Expires === null ? "never" : `${s.Expires} (${days !== null && days >= 0 ? `in ${days} days` : "expired"})`;
  return [
    `State: ${s.State}`,
    `Licensed: ${s.Licensed ? "yes" : "no"}`,
    `ID: ${s.ID}`,
    `User limit: ${s.UserLimit}`,
    `Sessions per user: ${s.SessionLimit}`,
    `Machines: ${s.MachineCount} of ${s.MaxMachines}`,
    `Expires: ${expires}`,
  ].join("\n");
}

/** A licensing service over the data directory's database, trusting POSTERN_LICENSE_PUBLIC_KEYS. */
async function withLicensing<T>(g: GlobalOptions, fn: (l: LicensingService) => Promise<T>): Promise<T> {
  const database = await openMigrated(g);
  try {
    const engine = new GrantEngine(database.db, systemClock, createLogger("silent"));
    const licensing = new LicensingService({
      db: database.db,
      clock: systemClock,
      engine,
      licensePublicKeys: [process.env["POSTERN_LICENSE_PUBLIC_KEYS"] ?? ""],
    });
    return await fn(licensing);
  } finally {
    await database.close();
  }
}

/** Registers the `license` command group. */
export function registerLicense(program: Command): void {
  const license = program.command("license").description("licence keys: signing keys, issue, install, show");

  license
    .command("keygen")
    .description("create an Ed25519 licence signing key; prints the public key for POSTERN_LICENSE_PUBLIC_KEYS")
    .option("--out <dir>", `directory to write ${SIGNING_KEY_FILE} to (mode 0600)`, ".")
    .action((opts: { out: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const dir = resolve(opts.out);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, SIGNING_KEY_FILE);
      const { privateKeyPem, publicKey } = generateLicenseSigningKey();
      try {
        writeFileSync(file, privateKeyPem, { mode: 0o600, flag: "wx" });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST")
          throw new Error(`${file} exists: refusing to overwrite a signing key`, { cause: err });
        throw err;
      }
      say(`private signing key written to ${file}: keep it secret`);
      say("trust it on the server with POSTERN_LICENSE_PUBLIC_KEYS=<public key> (comma-separate several)");
      output(g, { PublicKey: publicKey, PrivateKeyFile: file }, publicKey);
    });

  license
    .command("issue")
    .description("sign a licence key with a private key from keygen and print it")
    .requiredOption("--key <file>", "private signing key (PEM)")
    .requiredOption("--id <id>", "licence id")
    .requiredOption("--users <n>", "user limit (admins are never counted)")
    .requiredOption("--overage <percent>", "users that may be created beyond the limit, as a percentage of it")
    .requiredOption("--sessions <n>", "most sessions per user")
    .requiredOption("--machines <n>", "most agents")
    .option("--expires <date>", "YYYY-MM-DD (valid through that day, UTC) or ISO 8601 time; default never")
    .action(
      (
        opts: {
          key: string;
          id: string;
          users: string;
          overage: string;
          sessions: string;
          machines: string;
          expires?: string;
        },
        cmd: Command,
      ) => {
        const g = cmd.optsWithGlobals<GlobalOptions>();
        const privateKey = parseLicensePrivateKey(readFileSync(resolve(opts.key), "utf8"));
        const payload = {
          ID: opts.id,
          UserLimit: wholeNumber("--users", opts.users),
          UserLimitOverage: wholeNumber("--overage", opts.overage),
          SessionLimit: wholeNumber("--sessions", opts.sessions),
          MaxMachines: wholeNumber("--machines", opts.machines),
          Expires: opts.expires === undefined ? null : parseExpires(opts.expires),
        };
        const key = signLicense(payload, privateKey);
        say(
          `licence ${payload.ID} issued: ${payload.UserLimit} users (+${payload.UserLimitOverage}%), ${payload.SessionLimit} sessions, ${payload.MaxMachines} machines, expires ${payload.Expires ?? "never"}`,
        );
        output(g, { License: key, Payload: payload }, key);
      },
    );

  license
    .command("install")
    .description(
      "verify a licence key (or free) against POSTERN_LICENSE_PUBLIC_KEYS and install it, replacing the installed one",
    )
    .argument("<key>", "licence key, or free for the free single-user licence")
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const status = await withLicensing(g, async (l) => await l.install(key, { adminName: "cli", ip: "" }));
      say(`licence ${status.ID} installed`);
      output(g, status, describeStatus(status, Date.now()));
    });

  license
    .command("show")
    .description("print the installed licence's status")
    .action(async (_opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const status = await withLicensing(g, async (l) => await l.status());
      output(g, status, describeStatus(status, Date.now()));
    });
}
