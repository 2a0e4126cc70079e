/**
 * Runs a command line without blocking this process (a server under test may answer from it, which
 * `spawnSync` would stall): stdout ignored, stderr kept, killed by PID after `timeoutMs`.
 */
import { spawn } from "node:child_process";

/** How a command ended: its exit status (null when killed) and what it wrote to stderr. */
export interface RunResult {
  status: number | null;
  stderr: string;
}

/** Runs `command args`; `timeoutMs` MILLISECONDS (default 60,000) before SIGKILL. */
export function runAsync(command: string, args: readonly string[], timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}
