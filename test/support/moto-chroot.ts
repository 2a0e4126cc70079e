/**
 * Where moto_server comes from when the machine has none (issue #10 item 13): Debian bookworm does
 * not package moto, trixie does (python3-moto). The tests build, once, a debootstrapped trixie
 * minbase with python3-moto and its server's Flask in `~/.cache/postern/trixie-moto/` (about 2
 * minutes and 60 MB from the Debian mirror; as root, with debootstrap) and run moto_server in it
 * with `chroot` — same network namespace, so it listens on the host's 127.0.0.1. Concurrent test
 * files wait for one builder (a lock file, bounded 10 minutes); a half-built root is never used (it
 * is renamed into place only when moto_server answers `--help`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, rmSync, renameSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEBIAN_MIRROR } from "./chroot.ts";

const CACHE = join(homedir(), ".cache", "postern");
/** The cached chroot with moto_server. */
export const MOTO_ROOT = join(CACHE, "trixie-moto");
const LOCK = `${MOTO_ROOT}.lock`;
/** The packages the chroot gets beyond minbase (python3-cffi-backend provides a virtual package debootstrap cannot resolve). */
const INCLUDE = "python3-moto,python3-flask,python3-flask-cors,python3-cffi-backend";
const BUILD_TIMEOUT_MS = 600_000;

function motoRuns(root: string): boolean {
  return spawnSync("chroot", [root, "moto_server", "--help"], { timeout: 60_000 }).status === 0;
}

/**
 * The command that starts moto_server here: the machine's own, else the cached trixie chroot's
 * (built now when missing and this process may build it). Undefined when neither can be had (not
 * root, no debootstrap, no mirror): the caller skips, saying so.
 */
export async function motoServerCommand(): Promise<string[] | undefined> {
  if (spawnSync("moto_server", ["--help"], { timeout: 20_000 }).status === 0) return ["moto_server"];
  if (existsSync(MOTO_ROOT)) return ["chroot", MOTO_ROOT, "moto_server"];
  if (process.getuid?.() !== 0 || spawnSync("debootstrap", ["--version"]).error) return undefined;
  mkdirSync(CACHE, { recursive: true });
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(LOCK, "wx");
    } catch {
      // Another test file builds it: wait (a lock older than the build timeout is stale).
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > BUILD_TIMEOUT_MS)
        rmSync(LOCK, { force: true });
    }
    if (fd !== undefined) {
      try {
        if (!existsSync(MOTO_ROOT)) build();
      } catch (err) {
        console.warn(`moto chroot: ${(err as Error).message}`);
      } finally {
        closeSync(fd);
        rmSync(LOCK, { force: true });
      }
    }
    if (existsSync(MOTO_ROOT)) return ["chroot", MOTO_ROOT, "moto_server"];
    if (fd !== undefined || Date.now() > deadline) return undefined;
    await sleep(1000);
  }
}

function build(): void {
  const work = `${MOTO_ROOT}.building-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  try {
    execFileSync("debootstrap", ["--variant=minbase", `--include=${INCLUDE}`, "trixie", work, DEBIAN_MIRROR], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: BUILD_TIMEOUT_MS,
    });
    if (!motoRuns(work)) throw new Error("moto_server does not run in the new trixie chroot");
    renameSync(work, MOTO_ROOT);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
