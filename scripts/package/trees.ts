/**
 * The program trees of the Debian packages (packaging/README.md "Layout"), without the Node.js binary
 * and the package's own files (launchers, units, docs): the esbuild bundles (package/bundle.ts), the
 * external modules they load, and the resources the code finds through `import.meta.url`. Used by
 * `npm run package` (scripts/package.ts) and by bench/memory.ts (`--agent-packaged`,
 * `--server-packaged`), so the benchmark runs what the packages ship.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { bundle } from "./bundle.ts";
import type { BundledPackage } from "./bundle.ts";
import { shipModules } from "./runtime.ts";

/** How to bundle: `splitting` as in BundleSpec (default true; the packages always split). */
export interface TreeOptions {
  splitting?: boolean;
}

function copy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

/**
 * Writes the agent's program into `lib` (the package's /usr/lib/postern/agent): agent.mjs and its
 * chunks. Returns the npm packages inside the bundle.
 * @throws Error when esbuild fails.
 */
export function stageAgentTree(repo: string, lib: string, opts: TreeOptions = {}): Promise<BundledPackage[]> {
  return bundle(repo, { entries: { agent: "agent/src/main.ts" }, outdir: lib, treeRootFromBundle: "..", ...opts });
}

/**
 * Writes the server's program into `root` (the package's /usr/lib/postern): server/server.mjs and
 * server/cli.mjs with their shared chunks, the external modules in server/node_modules, server/
 * package.json (`{name, version}`: the version the admin console shows), the migrations of both
 * dialects, the SAML schemas, the agent install script template, and web/dist. Returns the npm
 * packages inside the bundles, sorted by name.
 * @throws Error when web/dist is missing (run scripts/setup.sh), a shipped module is missing, or
 *   esbuild fails.
 */
export async function stageServerTree(
  repo: string,
  root: string,
  version: string,
  opts: TreeOptions = {},
): Promise<BundledPackage[]> {
  const lib = join(root, "server");
  const webDist = join(repo, "web/dist");
  if (!existsSync(webDist)) throw new Error("web/dist is missing: run scripts/setup.sh (npm run build) first");
  const packages = await bundle(repo, {
    entries: { server: "server/src/main.ts", cli: "cli/src/main.ts" },
    outdir: lib,
    treeRootFromBundle: "..",
    ...opts,
  });
  shipModules(repo, lib, ["better-sqlite3", "@node-rs/argon2", "@node-rs/argon2-linux-x64-gnu", "xmllint-wasm"]);
  // The resources the code finds next to itself (import.meta.url, see package/bundle.ts).
  writeFileSync(join(lib, "package.json"), `${JSON.stringify({ name: "@postern/server", version }, null, 2)}\n`);
  copy(join(repo, "server/drizzle"), join(lib, "drizzle"));
  copy(join(repo, "server/drizzle-pg"), join(lib, "drizzle-pg"));
  copy(join(repo, "server/src/services/saml/schemas"), join(lib, "src/services/saml/schemas"));
  copy(join(repo, "server/src/services/agent-install.sh"), join(lib, "src/services/agent-install.sh"));
  copy(webDist, join(root, "web/dist"));
  return packages;
}
