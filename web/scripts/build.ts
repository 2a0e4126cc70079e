/**
 * Production build of the portal: `npm run build -w web` (or `node web/scripts/build.ts`).
 *
 * Steps: compile the lingui catalogs (src/locales/{en,de}/messages.po → messages.js), build the
 * Tailwind v4 CSS, bundle src/main.tsx with esbuild (lingui macros through Babel; code splitting:
 * what is imported with `import()` — the two-factor pages, the older Home, the change-password
 * dialog and its strength estimator, the German catalog — goes to `assets/chunks/`), then write
 * dist/index.html (with `<link rel="modulepreload">` for the chunks the entry imports statically),
 * dist/assets/main-<hash>.{js,css}, the favicons and dist/build.json (`{"JsBundleHash": "<hash>"}`,
 * read by the server for GET /api/system_status, user-portal §2). The entry's hash covers the
 * chunks too: it names them by their own content hashes. Output is deterministic: the same sources
 * give byte-identical files and hashes.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { getConfig } from "@lingui/conf";
import { build } from "esbuild";
import { linguiMacroPlugin, sharedTreeShakingPlugin } from "./esbuild-plugins.ts";

const run = promisify(execFile);
const webDir = dirname(dirname(fileURLToPath(import.meta.url)));
const distDir = join(webDir, "dist");
const assetsDir = join(distDir, "assets");

/** Length of the content hash in file names and in build.json (hex characters of a SHA-256). */
const HASH_LENGTH = 16;

/** Hex SHA-256 of the content, shortened to HASH_LENGTH characters. */
function contentHash(content: Uint8Array | string): string {
  return createHash("sha256").update(content).digest("hex").slice(0, HASH_LENGTH);
}

/** Runs a package's command-line entry point with the current Node. */
async function runNodeBin(binPath: string, args: string[]): Promise<void> {
  const { stderr } = await run(process.execPath, [binPath, ...args], {
    cwd: webDir,
    env: { ...process.env, NODE_ENV: "production" },
  });
  const quiet = [/Unknown (env|user) config/, /^≈ tailwindcss/, /^Done in /, /^Compiling message catalogs/];
  const noise = stderr.split("\n").filter((line) => line.trim() !== "" && !quiet.some((re) => re.test(line.trim())));
  if (noise.length > 0) process.stderr.write(noise.join("\n") + "\n");
}

function packageBin(specifier: string, relative: string): string {
  return fileURLToPath(new URL(relative, import.meta.resolve(specifier)));
}

/** Compiled catalogs go to src/locales/<locale>/messages.js (ignored by git and eslint). */
async function compileCatalogs(): Promise<void> {
  await runNodeBin(packageBin("@lingui/cli", "./lingui.js"), [
    "compile",
    "--namespace",
    "es",
    "--strict",
    "--workers",
    "1",
  ]);
  const config = getConfig({ cwd: webDir, skipValidation: true });
  for (const locale of config.locales) {
    const dir = join(webDir, "src/locales", locale);
    await rename(join(dir, "messages.mjs"), join(dir, "messages.js"));
  }
}

async function buildCss(): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), "postern-css-"));
  try {
    const out = join(tmp, "main.css");
    await runNodeBin(packageBin("@tailwindcss/cli/package.json", "./dist/index.mjs"), [
      "--input",
      join(webDir, "src/styles.css"),
      "--output",
      out,
      "--minify",
    ]);
    return await readFile(out, "utf8");
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The JavaScript of one build: the entry, its chunks (paths relative to assets/), and what the entry imports statically. */
interface JsBuild {
  entry: Uint8Array;
  chunks: { path: string; contents: Uint8Array }[];
  /** Chunk paths (relative to assets/) loaded with the entry: its static imports, transitively. */
  preload: string[];
}

/** Name of the entry in the esbuild output before it is renamed by its content hash. */
const ENTRY = "main.js";

async function buildJs(): Promise<JsBuild> {
  const linguiConfig = getConfig({ cwd: webDir, skipValidation: true });
  const outdir = join(webDir, "dist-tmp");
  const result = await build({
    entryPoints: { main: join(webDir, "src/main.tsx") },
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome111", "firefox115", "safari16.4"],
    platform: "browser",
    jsx: "automatic",
    write: false,
    outdir,
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    metafile: true,
    legalComments: "none",
    // Generated code: keeps `eslint .` quiet should web/dist/ not be in the root ignores.
    banner: { js: "/* eslint-disable */" },
    charset: "utf8",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [sharedTreeShakingPlugin(), linguiMacroPlugin(linguiConfig)],
    logLevel: "warning",
  });
  const rel = (path: string): string => relative(outdir, path).split(sep).join("/");
  const entryFile = result.outputFiles.find((f) => rel(f.path) === ENTRY);
  if (entryFile === undefined) throw new Error("esbuild produced no entry");
  const chunks = result.outputFiles
    .filter((f) => f !== entryFile && f.path.endsWith(".js"))
    .map((f) => ({ path: rel(f.path), contents: f.contents }));
  // Static imports of the entry, transitively (the metafile names outputs relative to the cwd).
  const outputs = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([path, meta]) => [rel(resolve(path)), meta]),
  );
  const preload: string[] = [];
  const visit = (path: string): void => {
    for (const imported of outputs[path]?.imports ?? []) {
      const target = rel(resolve(imported.path));
      if (imported.kind === "import-statement" && !preload.includes(target)) {
        preload.push(target);
        visit(target);
      }
    }
  };
  visit(ENTRY);
  return { entry: entryFile.contents, chunks, preload };
}

function sizeLine(name: string, content: Uint8Array | string): string {
  const raw = typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
  const gz = gzipSync(content, { level: 9 }).byteLength;
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
  return `  ${name.padEnd(56)} ${kb(raw).padStart(10)} raw ${kb(gz).padStart(10)} gzip`;
}

async function main(): Promise<void> {
  const started = Date.now();
  await compileCatalogs();
  const [css, js] = await Promise.all([buildCss(), buildJs()]);

  const jsHash = contentHash(js.entry);
  const jsName = `main-${jsHash}.js`;
  const cssName = `main-${contentHash(css)}.css`;

  await rm(distDir, { recursive: true, force: true });
  await mkdir(join(assetsDir, "chunks"), { recursive: true });
  await cp(join(webDir, "public"), distDir, { recursive: true });
  const template = await readFile(join(webDir, "src/index.html"), "utf8");
  const preloadTags = js.preload.map((path) => `<link rel="modulepreload" href="/assets/${path}" />`).join("\n    ");
  const html = template
    .replaceAll("%BUNDLE_HASH%", jsHash)
    .replaceAll("%CSS%", `/assets/${cssName}`)
    .replaceAll("%JS%", `/assets/${jsName}`)
    .replace("%PRELOAD%", preloadTags);
  await Promise.all([
    writeFile(join(assetsDir, jsName), js.entry),
    ...js.chunks.map((chunk) => writeFile(join(assetsDir, chunk.path), chunk.contents)),
    writeFile(join(assetsDir, cssName), css),
    writeFile(join(distDir, "index.html"), html),
    writeFile(join(distDir, "build.json"), JSON.stringify({ JsBundleHash: jsHash }) + "\n"),
  ]);

  console.log(`web: built dist/ in ${Date.now() - started} ms (JsBundleHash ${jsHash})`);
  console.log(sizeLine(`assets/${jsName}`, js.entry));
  for (const chunk of js.chunks)
    console.log(
      sizeLine(`assets/${chunk.path}${js.preload.includes(chunk.path) ? " (first load)" : ""}`, chunk.contents),
    );
  console.log(sizeLine(`assets/${cssName}`, css));
  console.log(sizeLine("index.html", html));
}

await main();
