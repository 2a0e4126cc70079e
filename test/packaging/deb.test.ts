/**
 * The Debian packages end to end (issue #11 item 10), in a debootstrapped bookworm chroot
 * (test/support/chroot.ts): `npm run package` builds both (lintian must pass), then the server
 * package installs (user, directories, migrations), its packaged Node serves HTTPS inside the chroot
 * with a self-signed certificate, `postern admin create` works and the admin signs in, the agent is
 * installed and enrolled by the one-liner the CLI prints (pinned to the certificate) and connects;
 * an upgrade applies the one migration the previous package lacked before the server starts again,
 * with the data kept; remove keeps the data, purge leaves nothing of Postern.
 *
 * The "previous" package is built from the previous commit (the first parent of HEAD, from `git
 * archive` with its own `npm ci`, about two minutes) and given the version `<v>~prev`; where that
 * commit cannot build packages yet (no scripts/package.ts, or a shallow clone), the built package is
 * repacked with that version and without its newest migration instead, and the test says so.
 * No systemd runs in a chroot: the test starts the server and the agent itself and stops them by PID.
 * Skipped, with a warning, when not root or without debootstrap or dpkg-deb.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chrootUnavailable, createChroot } from "../support/chroot.ts";
import type { Chroot } from "../support/chroot.ts";

const repo = join(import.meta.dirname, "..", "..");
const missing =
  chrootUnavailable() ?? (spawnSync("dpkg-deb", ["--version"]).error ? "dpkg-deb is not installed" : undefined);
if (missing) console.warn(`packaging: Debian package test SKIPPED: ${missing}`);

const version = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string }).version;
const PASSWORD = "Str0ng-Passw0rd-for-the-package-test!";

/**
 * Run by the packaged Node inside the chroot: the SAML schema check as the server makes it
 * (services/saml/schema-validator.ts), with the shipped xmllint-wasm (its worker and .wasm) and the
 * shipped schemas at the place the bundle looks for them. Prints "<valid> <invalid>" results.
 */
const SAML_CHECK = `
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const lib = "/usr/lib/postern/server";
const { validateXML } = createRequire(lib + "/")("xmllint-wasm");
const f = (n) => ({ fileName: n, contents: readFileSync(lib + "/src/services/saml/schemas/" + n, "utf8") });
const preload = ["saml-schema-assertion-2.0.xsd", "xmldsig-core-schema.xsd", "xenc-schema.xsd", "XMLSchema.dtd", "datatypes.dtd"].map(f);
const check = (xml) => validateXML({ xml: [{ fileName: "m.xml", contents: xml }], schema: f("saml-schema-protocol-2.0.xsd"), preload });
const ns = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const good = await check('<samlp:LogoutRequest ' + ns + ' ID="_1" Version="2.0" IssueInstant="2024-01-01T00:00:00Z"><saml:NameID>u</saml:NameID></samlp:LogoutRequest>');
const bad = await check('<samlp:LogoutRequest ' + ns + '/>');
console.log(good.valid + " " + bad.valid);
`;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Waits for `check` to hold, polling every 250 ms for at most `ms`. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return check();
}

/** A process started inside the chroot (through chroot, env, setpriv and the wrappers, all exec). */
interface Started {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

function startIn(c: Chroot, cmd: string[]): Started {
  const child = spawn("chroot", [c.root, "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", ...cmd], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Repacks `deb` (uncompressed, quick) with `version`; `edit` may change the unpacked tree first. */
function repack(deb: string, out: string, newVersion: string, edit: (tree: string) => void = () => undefined): void {
  const tree = mkdtempSync(join(tmpdir(), "postern-repack-"));
  try {
    execFileSync("dpkg-deb", ["-R", deb, tree]);
    const control = join(tree, "DEBIAN/control");
    writeFileSync(control, readFileSync(control, "utf8").replace(/^Version: .*$/m, `Version: ${newVersion}`));
    edit(tree);
    execFileSync("dpkg-deb", ["--root-owner-group", "-Znone", "-b", tree, out], { stdio: "ignore" });
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** How many migrations a source tree's journal lists. */
function migrationsIn(tree: string): number {
  const journal = JSON.parse(readFileSync(join(tree, "server/drizzle/meta/_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/**
 * Builds the server package of the previous commit (HEAD's first parent) into `out`, as version
 * `<v>~prev`; answers it with the commit and its migration count, or undefined (and why) when that
 * commit cannot be built here.
 */
function buildPrevious(out: string): { deb: string; rev: string; migrations: number } | string {
  const rev = spawnSync("git", ["-C", repo, "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}"], {
    encoding: "utf8",
  }).stdout.trim();
  if (!rev) return "no previous commit (a shallow clone?)";
  if (spawnSync("git", ["-C", repo, "cat-file", "-e", `${rev}:scripts/package.ts`]).status !== 0)
    return `the previous commit ${rev.slice(0, 10)} has no scripts/package.ts`;
  const tree = mkdtempSync(join(tmpdir(), "postern-prev-"));
  try {
    execFileSync("sh", ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, rev, tree]);
    const run = (cmd: string, args: string[], env: Record<string, string> = {}) =>
      execFileSync(cmd, args, {
        cwd: tree,
        env: { ...process.env, ...env },
        stdio: ["ignore", "ignore", "inherit"],
        timeout: 600_000,
      });
    run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
    run("npm", ["run", "--silent", "build"]);
    const built = join(tree, "dist-prev");
    run(process.execPath, ["scripts/package.ts"], {
      POSTERN_DIST_DIR: built,
      POSTERN_DEB_XZ_LEVEL: "1",
      POSTERN_SKIP_LINTIAN: "1",
    });
    const deb = readdirSync(built).find((f) => f.startsWith("postern-server_") && f.endsWith(".deb"));
    if (!deb) return "the previous commit built no server package";
    const target = join(out, "previous.deb");
    repack(join(built, deb), target, `${version}~prev`);
    return { deb: target, rev, migrations: migrationsIn(tree) };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** Drops the newest migration from an unpacked server package (the stand-in "previous release"). */
function dropNewestMigration(tree: string): string {
  const dir = join(tree, "usr/lib/postern/server/drizzle");
  const journalFile = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.pop();
  if (!last) throw new Error("no migrations");
  rmSync(join(dir, `${last.tag}.sql`));
  writeFileSync(journalFile, JSON.stringify(journal, null, 2));
  return last.tag;
}

describe.skipIf(missing !== undefined)("Debian packages in a bookworm chroot", () => {
  let dist: string;
  let c: Chroot | undefined;
  const started: Started[] = [];
  let previous: ReturnType<typeof buildPrevious> = "";

  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), "postern-dist-"));
    // Quick xz: the packages are thrown away after the test. lintian runs (package.ts fails on findings).
    const built = spawnSync("node", [join(repo, "scripts/package.ts")], {
      cwd: repo,
      env: { ...process.env, POSTERN_DIST_DIR: dist, POSTERN_DEB_XZ_LEVEL: "1" },
      encoding: "utf8",
      timeout: 600_000,
    });
    if (built.status !== 0) throw new Error(`npm run package failed:\n${built.stdout}\n${built.stderr}`);
    previous = buildPrevious(dist);
    if (typeof previous === "string") console.warn(`packaging: upgrade from a stand-in previous package: ${previous}`);
    c = createChroot();
  }, 900_000);

  afterAll(async () => {
    for (const s of started) await s.stop();
    c?.remove();
    if (dist) rmSync(dist, { recursive: true, force: true });
  }, 60_000);

  it("installs, serves HTTPS with its own Node, enrols an agent by the one-liner, upgrades and purges clean", async () => {
    const ch = c!;
    const serverDeb = join(dist, `postern-server_${version}_amd64.deb`);
    expect(existsSync(serverDeb)).toBe(true);
    expect(existsSync(join(dist, `postern-agent_${version}_amd64.deb`))).toBe(true);
    // The migrations the upgrade must apply: those the previous commit did not have (the stand-in: one).
    let pending = 1;
    if (typeof previous === "string")
      repack(serverDeb, join(ch.root, "tmp/previous.deb"), `${version}~prev`, (t) => void dropNewestMigration(t));
    else {
      copyFileSync(previous.deb, join(ch.root, "tmp/previous.deb"));
      pending = migrationsIn(repo) - previous.migrations;
    }
    copyFileSync(serverDeb, join(ch.root, "tmp/current.deb"));

    // Install the previous release: the user, the directories, the migrations it knows.
    const installed = ch.run(["dpkg", "-i", "/tmp/previous.deb"]);
    expect(installed.status, installed.stderr).toBe(0);
    expect(ch.run(["getent", "passwd", "postern"]).stdout).toMatch(
      /^postern:x:\d+:\d+:Postern server:\/var\/lib\/postern:/,
    );
    const uid = Number(ch.run(["id", "-u", "postern"]).stdout.trim());
    const dataDir = statSync(join(ch.root, "var/lib/postern"));
    expect(dataDir.mode & 0o777).toBe(0o700);
    expect(dataDir.uid).toBe(uid);
    expect(statSync(join(ch.root, "etc/postern/server.toml")).mode & 0o777).toBe(0o640);
    expect(existsSync(join(ch.root, "var/lib/postern/postern.db"))).toBe(true);

    const port = await freePort();
    const base = `https://127.0.0.1:${port}`;
    const startServer = () => {
      const s = startIn(ch, [
        `POSTERN_LISTEN=127.0.0.1:${port}`,
        "setpriv",
        "--reuid=postern",
        "--regid=postern",
        "--init-groups",
        "/usr/bin/postern-server",
      ]);
      started.push(s);
      return s;
    };
    const answers = () => ch.run(["curl", "-fsk", "--max-time", "2", `${base}/api/ip`]).status === 0;

    let server = startServer();
    expect(await until(answers, 30_000), server.output()).toBe(true);
    // The packaged Node serves it, with the self-signed certificate it made and printed.
    expect(readlinkSync(`/proc/${server.child.pid}/exe`)).toBe(join(ch.root, "usr/lib/postern/server/node"));
    // Printed right after the listener opened: it may reach us a moment after the first answer.
    const printed = (s: Started) => /TLS certificate SHA-256 ([0-9A-F:]{95})/.exec(s.output())?.[1];
    expect(await until(() => printed(server) !== undefined, 10_000), server.output()).toBe(true);
    const fingerprint = printed(server);
    expect(fingerprint).toBeDefined();
    expect(existsSync(join(ch.root, "var/lib/postern/tls/cert.pem"))).toBe(true);
    const page = ch.run(["curl", "-fsk", `${base}/`]);
    expect(page.stdout).toContain("<!doctype html>");
    writeFileSync(join(ch.root, "tmp/saml-check.mjs"), SAML_CHECK);
    const saml = ch.run(["/usr/lib/postern/server/node", "/tmp/saml-check.mjs"]);
    expect(saml.stdout.trim(), saml.stderr).toBe("true false");

    // postern admin create (run by root, it writes as the postern user), then a sign-in over HTTPS.
    const admin = ch.run(["postern", "admin", "create", "--username", "root", "--name", "Root", "--password-stdin"], {
      input: `${PASSWORD}\n`,
    });
    expect(admin.status, admin.stderr).toBe(0);
    const signIn = () =>
      ch.run([
        "curl",
        "-sk",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-H",
        "content-type: application/json",
        "-H",
        `origin: ${base}`,
        "--data",
        JSON.stringify({ UserName: "root", Password: PASSWORD }),
        `${base}/api/admin/login`,
      ]).stdout;
    expect(signIn()).toBe("204");

    // The one-liner, as the CLI prints it (pinned to the self-signed certificate), run as root.
    const created = ch.run(["postern", "--json", "agent", "create", "edge"], {
      env: { POSTERN_LISTEN: `127.0.0.1:${port}` },
    });
    expect(created.status, created.stderr).toBe(0);
    const command = (JSON.parse(created.stdout) as { InstallCommand: string }).InstallCommand;
    expect(command).toContain(`--server-fingerprint ${fingerprint}`);
    expect(command).toContain("--pinnedpubkey sha256//");
    const oneLiner = ch.run(["sh", "-c", command.replace("| sudo sh", "| sh")], { timeoutMs: 180_000 });
    expect(oneLiner.status, oneLiner.stderr).toBe(0);
    expect(oneLiner.stderr).toContain('enrolled as "edge"');
    expect(ch.run(["dpkg-query", "-W", "-f", "${Status}", "postern-agent"]).stdout).toBe("install ok installed");
    expect(statSync(join(ch.root, "etc/postern/agent.json")).mode & 0o777).toBe(0o600);
    const agent = startIn(ch, ["postern-agent", "run", "--config", "/etc/postern/agent.json"]);
    started.push(agent);
    expect(await until(() => server.output().includes('"agent":"edge"'), 20_000), agent.output()).toBe(true);
    await agent.stop();
    await server.stop();

    // Upgrade: the migrations the previous package lacked run once, before the server starts again.
    const upgraded = ch.run(["dpkg", "-i", "/tmp/current.deb"]);
    expect(upgraded.status, upgraded.stderr).toBe(0);
    expect(upgraded.stderr).toMatch(pending > 0 ? new RegExp(`applied ${pending} migration\\(s\\)`) : /is up to date/);
    server = startServer();
    expect(await until(answers, 30_000), server.output()).toBe(true);
    expect(await until(() => printed(server) !== undefined, 10_000), server.output()).toBe(true);
    expect(printed(server)).toBe(fingerprint);
    expect(signIn()).toBe("204");
    await server.stop();

    // Remove keeps the data; purge leaves nothing of Postern.
    expect(ch.run(["dpkg", "--remove", "postern-server"]).status).toBe(0);
    expect(existsSync(join(ch.root, "var/lib/postern/postern.db"))).toBe(true);
    expect(existsSync(join(ch.root, "usr/bin/postern-server"))).toBe(false);
    const purged = ch.run(["dpkg", "--purge", "postern-server", "postern-agent"]);
    expect(purged.status, purged.stderr).toBe(0);
    expect(ch.run(["getent", "passwd", "postern"]).status).not.toBe(0);
    expect(ch.run(["getent", "group", "postern"]).status).not.toBe(0);
    const left = ch.run([
      "find",
      "/",
      "-xdev",
      "(",
      "-path",
      "/proc",
      "-o",
      "-path",
      "/tmp",
      ")",
      "-prune",
      "-o",
      "-name",
      "*postern*",
      "-print",
    ]);
    expect(left.stdout.trim()).toBe("");
  }, 600_000);
});
