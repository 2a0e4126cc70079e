/**
 * esbuild bundles of the Debian packages (packaging/README.md "Layout"): one ESM entry file per
 * program (`<outdir>/<name>.mjs`) and, with code splitting (the default), the code it loads only on
 * demand in `<outdir>/chunks/*.mjs`: every dynamic `import()` of the source (a vendor SDK of one
 * backend, the password-strength dictionaries, the PostgreSQL driver, ...) becomes a chunk that is
 * read and compiled only when that code first runs, and programs bundled together (server and CLI)
 * share their common chunks. The native and WebAssembly dependencies stay external (they are shipped
 * in node_modules/ next to the bundle, see `shipModules`).
 *
 * Paths resolved with `new URL("...", import.meta.url)` (the migrations, the SAML schemas, the web
 * app, package.json) keep working: in every source file of the repository `import.meta.url` is
 * replaced by the URL that file would have in the installed tree (`treeRoot` mirrors the repository,
 * so `/usr/lib/postern/server/src/db/index.ts` for `server/src/db/index.ts`), computed at run time
 * from the output directory (`__posternOutdir`, which a banner defines in every output file: its own
 * directory, or the parent one for a file in chunks/). The resources themselves are copied to the
 * same mirrored places.
 */
import { build } from "esbuild";
import type { Plugin } from "esbuild";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";

/**
 * Packages that stay outside the bundle: native addons, the wasm validator, optional ws helpers, and
 * node-postgres' optional native binding (never installed: `pg` loads it only when asked to).
 */
export const EXTERNAL_MODULES = [
  "better-sqlite3",
  "pg-native",
  "@node-rs/argon2",
  "xmllint-wasm",
  "bufferutil",
  "utf-8-validate",
] as const;

/** The folder of the on-demand chunks inside the output directory. */
export const CHUNKS_DIR = "chunks";

/** Programs to bundle together into one output directory. */
export interface BundleSpec {
  /**
   * Output name → entry point relative to the repository root, e.g. `{ server: "server/src/main.ts" }`
   * for `<outdir>/server.mjs`.
   */
  entries: Readonly<Record<string, string>>;
  /** Output directory (absolute): the entry files, and the chunks in `chunks/`. */
  outdir: string;
  /**
   * The installed tree root as seen from the output directory (e.g. ".." for bundles in
   * /usr/lib/postern/server/ and the tree root /usr/lib/postern/).
   */
  treeRootFromBundle: string;
  /**
   * Code splitting (default true). false writes one self-contained file per entry and no chunks,
   * as the packages were built before (bench/memory.ts `--single-file-bundle` compares the two).
   */
  splitting?: boolean;
}

/**
 * Rewrites `import.meta.url` in the repository's own TypeScript files into the file's URL inside
 * the installed tree (see the module comment). Files under node_modules are left alone.
 */
function importMetaUrlPlugin(repoRoot: string, treeRootFromBundle: string): Plugin {
  return {
    name: "postern-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        const rel = relative(repoRoot, args.path);
        if (rel.startsWith("..") || rel.includes("node_modules") || !source.includes("import.meta.url"))
          return { contents: source, loader: "ts" };
        const where = JSON.stringify(`${treeRootFromBundle}/${rel.split("\\").join("/")}`);
        return {
          contents: source.replaceAll("import.meta.url", `new URL(${where}, __posternOutdir).href`),
          loader: "ts",
        };
      });
    },
  };
}

/** Node's built-in module names, with and without the `node:` prefix (`fs`, `node:fs`, `node:sqlite`, ...). */
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * Makes every static `import ... from "node:http"` (any Node built-in) of the bundled code a
 * `require("node:http")` (through a one-line CommonJS module that esbuild wraps like any other). An
 * ES import of a built-in makes Node read every export of it to build the module namespace, which
 * runs its lazy getters: `http.WebSocket` loads Node's own copy of undici (~0.8 MB of source,
 * ~9 MB RSS), `crypto.webcrypto` Web Crypto, `tls.rootCertificates` the CA list, `process.stdin` a
 * stdin handle. `require` returns the same module object without touching them (bench/README.md
 * "Memory", 2026-11-26). Named imports become property reads at the call, which built-ins serve the
 * same way.
 */
function builtinsByRequirePlugin(): Plugin {
  return {
    name: "postern-builtins-by-require",
    setup(b) {
      b.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
        if (args.kind !== "import-statement" || !BUILTINS.has(args.path)) return undefined;
        return { path: args.path.startsWith("node:") ? args.path : `node:${args.path}`, namespace: "postern-builtin" };
      });
      b.onLoad({ filter: /.*/, namespace: "postern-builtin" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}

/**
 * Bundles the programs of `spec` (ESM, Node 24; whitespace and syntax minified, identifiers not, so
 * stack traces stay readable; Node built-ins loaded with `require`, see `builtinsByRequirePlugin`)
 * into `spec.outdir`: `<name>.mjs` per entry and the shared and on-demand chunks in `chunks/`. CommonJS dependencies get `require`, `__filename` and `__dirname` from a banner.
 * Returns the npm packages inside the output, sorted by name.
 * @throws Error when esbuild reports errors.
 */
export async function bundle(repoRoot: string, spec: BundleSpec): Promise<BundledPackage[]> {
  const result = await build({
    metafile: true,
    absWorkingDir: repoRoot,
    entryPoints: Object.entries(spec.entries).map(([out, input]) => ({ in: input, out })),
    outdir: spec.outdir,
    splitting: spec.splitting ?? true,
    entryNames: "[name]",
    chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    external: [...EXTERNAL_MODULES],
    legalComments: "none",
    // Whitespace, comments and syntax minified, identifiers kept (stack traces name the functions):
    // V8 holds each loaded file's source text in memory, as two bytes a character when a comment has one
    // non-ASCII character (~2 MB less for the agent, bench/README.md "Memory", 2026-11-26).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: false,
    logLevel: "error",
    banner: {
      js: [
        'import { createRequire as __posternCreateRequire } from "node:module";',
        'import { fileURLToPath as __posternFileURLToPath } from "node:url";',
        "const require = __posternCreateRequire(import.meta.url);",
        "const __filename = __posternFileURLToPath(import.meta.url);",
        'const __dirname = __posternFileURLToPath(new URL(".", import.meta.url));',
        `const __posternOutdir = new URL(/\\/${CHUNKS_DIR}\\/[^/]*$/.test(import.meta.url) ? ".." : ".", import.meta.url);`,
      ].join("\n"),
    },
    plugins: [builtinsByRequirePlugin(), importMetaUrlPlugin(repoRoot, spec.treeRootFromBundle)],
  });
  return bundledPackages(repoRoot, Object.keys(result.metafile.inputs));
}

/** An npm package whose code is inside a bundle, with its licence (for the copyright file). */
export interface BundledPackage {
  name: string;
  version: string;
  license: string;
}

/** The npm packages among esbuild's inputs (paths relative to the repository), sorted by name. */
function bundledPackages(repoRoot: string, inputs: readonly string[]): BundledPackage[] {
  const names = new Set<string>();
  for (const input of inputs) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.split("\\").join("/"));
    if (m?.[1]) names.add(input.slice(0, m.index + m[0].length));
  }
  const out = new Map<string, BundledPackage>();
  for (const dir of names) {
    const pkg = JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as {
      name?: string;
      version?: string;
      license?: string | { type?: string };
    };
    if (!pkg.name) continue;
    const license = typeof pkg.license === "string" ? pkg.license : (pkg.license?.type ?? "see the package");
    out.set(`${pkg.name}@${pkg.version ?? ""}`, { name: pkg.name, version: pkg.version ?? "", license });
  }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}
