/**
 * A throw-away Debian bookworm chroot for the package tests (test/packaging/): debootstrap's
 * minbase with curl, from a tarball of its packages cached in ~/.cache/postern/ (fetched from the
 * Debian mirror once, ~45 MB), unpacked into a temporary folder (~30 s) with /proc mounted.
 * `remove()` unmounts /proc and deletes the folder only once nothing is mounted in it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import type { SpawnSyncReturns } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

/** The Debian mirror debootstrap fetches from (the machine's apt source). */
export const DEBIAN_MIRROR = "http://deb.debian.org/debian";
const SUITE = "bookworm";
const INCLUDE = "curl,ca-certificates";

/** What is missing to build a chroot here (undefined when nothing is): root, debootstrap. */
export function chrootUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "not root";
  if (spawnSync("debootstrap", ["--version"]).error) return "debootstrap is not installed";
  return undefined;
}

/** A running chroot. */
export interface Chroot {
  /** Its root folder on the host. */
  readonly root: string;
  /** Runs `cmd` inside with a clean environment plus `env`; never throws, answers the outcome. */
  run(
    cmd: string[],
    opts?: { env?: Record<string, string>; input?: string; timeoutMs?: number },
  ): SpawnSyncReturns<string>;
  /** Unmounts /proc and deletes the folder. */
  remove(): void;
}

/** The cached tarball of the suite's packages, made on first use. */
function debsTarball(): string {
  const dir = join(homedir(), ".cache", "postern");
  const file = join(dir, `${SUITE}-minbase-debs.tgz`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "postern-debootstrap-"));
  try {
    execFileSync(
      "debootstrap",
      ["--variant=minbase", `--include=${INCLUDE}`, `--make-tarball=${file}.tmp`, SUITE, work, DEBIAN_MIRROR],
      { stdio: ["ignore", "ignore", "inherit"], timeout: 300_000 },
    );
    renameSync(`${file}.tmp`, file);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return file;
}

function mountedUnder(root: string): string[] {
  return readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[1] ?? "")
    .filter((m) => m === root || m.startsWith(`${root}/`));
}

/**
 * Builds a fresh chroot and mounts /proc in it.
 * @throws Error when debootstrap or mount fails (the folder is removed then).
 */
export function createChroot(): Chroot {
  const tarball = debsTarball();
  const root = mkdtempSync(join(tmpdir(), "postern-chroot-"));
  chmodSync(root, 0o755); // mkdtemp makes 0700: the chroot's other users must reach its /
  const remove = () => {
    for (const m of mountedUnder(root).reverse()) spawnSync("umount", [m]);
    const left = mountedUnder(root);
    if (left.length > 0) throw new Error(`still mounted, ${root} left in place: ${left.join(", ")}`);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    execFileSync(
      "debootstrap",
      ["--variant=minbase", `--include=${INCLUDE}`, `--unpack-tarball=${tarball}`, SUITE, root, DEBIAN_MIRROR],
      { stdio: ["ignore", "ignore", "inherit"], timeout: 300_000 },
    );
    execFileSync("mount", ["-t", "proc", "proc", join(root, "proc")]);
  } catch (err) {
    remove();
    throw err;
  }
  return {
    root,
    run: (cmd, opts = {}) =>
      spawnSync(
        "chroot",
        [
          root,
          "env",
          "-i",
          "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
          "LANG=C.UTF-8",
          ...Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`),
          ...cmd,
        ],
        {
          encoding: "utf8",
          input: opts.input ?? "",
          timeout: opts.timeoutMs ?? 120_000,
          cwd: "/",
        },
      ),
    remove,
  };
}
