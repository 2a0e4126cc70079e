/**
 * The pid file of a data directory while a server runs on it (docs/operations.md "Backup and
 * restore": a restore refuses to run while it names a live process). Apart from backup.ts so that
 * the server writes it at start without loading the backup code and its tar library (issue #13
 * item 4: heavy modules loaded only when used).
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The name of a data directory's pid file while a server runs on it. */
export const SERVER_PID_FILE = "server.pid";

/** Writes the pid file of a server starting on `dataDir`; returns a function that removes it. */
export function writeServerPid(dataDir: string): () => void {
  const file = join(dataDir, SERVER_PID_FILE);
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (readFileSync(file, "utf8").trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

/** The pid of a live server on `dataDir`, or undefined (no pid file, or its process is gone). */
export function runningServerPid(dataDir: string): number | undefined {
  const file = join(dataDir, SERVER_PID_FILE);
  let pid: number;
  try {
    if (!statSync(file).isFile()) return undefined;
    pid = Number(readFileSync(file, "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}
