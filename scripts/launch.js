// Launcher used by the package bins (postern, postern-server, postern-agent). Written in plain
// JavaScript so that any node can read it: when the running node is older than the project's
// target (24, with native TypeScript type stripping), it re-executes the same command with the
// runtime that scripts/node-env.sh fetched into .node/, or explains how to get it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Runs the TypeScript entry point `entry` (a path relative to the repository root) on Node >= 24.
 * @param {string} entry
 */
export async function launch(entry) {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 24) {
    await import(pathToFileURL(join(root, entry)).href);
    return;
  }
  const local = join(root, ".node", "bin", "node");
  if (!existsSync(local)) {
    process.stderr.write(
      `postern: Node.js 24 or later is required (found ${process.version}); run scripts/setup.sh first\n`,
    );
    process.exitCode = 1;
    return;
  }
  const result = spawnSync(local, [join(root, entry), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exitCode = result.status ?? 1;
}
