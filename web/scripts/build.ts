/**
 * Production build of the two web apps: `npm run build -w web` (or `node web/scripts/build.ts`).
 *
 * Steps: compile the lingui catalogs (src/locales and src/admin/locales, {en,de}/messages.po →
 * messages.js), build each app's Tailwind v4 CSS, bundle each app with its own esbuild run —
 * src/portal/main.tsx (the portal) and src/admin/main.tsx (the admin console) — with lingui
 * macros through Babel and code splitting: what is imported with `import()` (the portal's
 * two-factor pages, older Home, change-password dialog and strength estimator, the German
 * catalogs, the admin console's pages) goes to `assets/chunks/`. The apps share no chunk, so the
 * portal's first load carries nothing of the admin console. Then write dist/index.html (the
 * portal) and dist/admin.html (the admin console, served for /admin and /admin/*), each with
 * `<link rel="modulepreload">` for the chunks its entry imports statically,
 * dist/assets/{main,admin}-<hash>.{js,css}, the favicons and dist/build.json
 * (`{"JsBundleHash": "<hash>"}`, read by the server for GET /api/system_status, docs/reference.md user-portal §2,
 * docs/reference.md admin-console §2): the hash of both entries' names, so a change to either app reloads both.
 * Entries name their chunks by content hashes, so the hash covers the chunks too.
 *
 * Every text file (JavaScript, CSS, HTML, SVG, JSON) also gets a brotli (`.br`, quality 11) and a
 * gzip (`.gz`, level 9) copy, which the server sends by `Accept-Encoding` (issue #9 item 17).
 * Output is deterministic: the same sources give byte-identical files and hashes.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompressSync, constants as zlibConstants, gzipSync } from "node:zlib";
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

/** Compiled catalogs go next to their .po files as messages.js (ignored by git and eslint). */
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
  for (const catalog of config.catalogs ?? [])
    for (const locale of config.locales) {
      const base = catalog.path.replace("<rootDir>", webDir).replace("{locale}", locale);
      await rename(`${base}.mjs`, `${base}.js`);
    }
}

/** Builds one app's stylesheet (`cssFile` relative to src/). */
async function buildCss(cssFile: string): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), "postern-css-"));
  try {
    const out = join(tmp, "main.css");
    await runNodeBin(packageBin("@tailwindcss/cli/package.json", "./dist/index.mjs"), [
      "--input",
      join(webDir, "src", cssFile),
      "--output",
      out,
      "--minify",
    ]);
    return await readFile(out, "utf8");
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The JavaScript of one app: its entry, its chunks (paths relative to assets/) and the chunks the entry imports statically, transitively. */
interface JsBuild {
  entry: Uint8Array;
  chunks: { path: string; contents: Uint8Array }[];
  preload: string[];
}

/** The two apps: esbuild entry name (also the asset name prefix) → its source files. */
const APPS = {
  main: { entry: "src/portal/main.tsx", css: "portal/portal.css", html: "src/portal/index.html", page: "index.html" },
  admin: { entry: "src/admin/main.tsx", css: "admin/admin.css", html: "src/admin/index.html", page: "admin.html" },
} as const;
type AppName = keyof typeof APPS;
const APP_NAMES = Object.keys(APPS) as AppName[];

/**
 * Bundles one app. The apps are bundled apart, not as two entries of one build: a shared chunk
 * would carry code of modules both reach (e.g. Headless UI's index re-exports) that only one app
 * uses, and so grow the portal's first load.
 */
async function buildJs(name: AppName): Promise<JsBuild> {
  const linguiConfig = getConfig({ cwd: webDir, skipValidation: true });
  const outdir = join(webDir, "dist-tmp");
  const result = await build({
    entryPoints: { [name]: join(webDir, APPS[name].entry) },
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
  const entryPath = `${name}.js`;
  const entryFile = result.outputFiles.find((f) => rel(f.path) === entryPath);
  if (entryFile === undefined) throw new Error(`esbuild produced no ${name} entry`);
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
  visit(entryPath);
  return { entry: entryFile.contents, chunks, preload };
}

/** Extensions of the files that get precompressed copies. */
const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

/** Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) next to every compressible file under `dir`. */
async function precompress(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((e) => e.isFile() && COMPRESSIBLE.test(e.name))
      .map(async (e) => {
        const path = join(e.parentPath, e.name);
        const content = await readFile(path);
        await writeFile(
          `${path}.br`,
          brotliCompressSync(content, {
            params: {
              [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
              [zlibConstants.BROTLI_PARAM_SIZE_HINT]: content.byteLength,
            },
          }),
        );
        await writeFile(`${path}.gz`, gzipSync(content, { level: 9 }));
      }),
  );
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
  const [portalCss, adminCss, portalJs, adminJs] = await Promise.all([
    buildCss(APPS.main.css),
    buildCss(APPS.admin.css),
    buildJs("main"),
    buildJs("admin"),
  ]);
  const css: Record<AppName, string> = { main: portalCss, admin: adminCss };
  const js: Record<AppName, JsBuild> = { main: portalJs, admin: adminJs };

  const names = Object.fromEntries(
    APP_NAMES.map((name) => [
      name,
      { js: `${name}-${contentHash(js[name].entry)}.js`, css: `${name}-${contentHash(css[name])}.css` },
    ]),
  ) as Record<AppName, { js: string; css: string }>;
  const jsHash = contentHash(APP_NAMES.map((name) => names[name].js).join("\n"));

  await rm(distDir, { recursive: true, force: true });
  await mkdir(join(assetsDir, "chunks"), { recursive: true });
  await cp(join(webDir, "public"), distDir, { recursive: true });
  const pages: Record<AppName, string> = { main: "", admin: "" };
  for (const name of APP_NAMES) {
    const template = await readFile(join(webDir, APPS[name].html), "utf8");
    const preloadTags = js[name].preload
      .map((path) => `<link rel="modulepreload" href="/assets/${path}" />`)
      .join("\n    ");
    pages[name] = template
      .replaceAll("%BUNDLE_HASH%", jsHash)
      .replaceAll("%CSS%", `/assets/${names[name].css}`)
      .replaceAll("%JS%", `/assets/${names[name].js}`)
      .replace("%PRELOAD%", preloadTags);
  }
  await Promise.all([
    ...APP_NAMES.flatMap((name) => [
      writeFile(join(assetsDir, names[name].js), js[name].entry),
      writeFile(join(assetsDir, names[name].css), css[name]),
      writeFile(join(distDir, APPS[name].page), pages[name]),
    ]),
    ...APP_NAMES.flatMap((name) =>
      js[name].chunks.map((chunk) => writeFile(join(assetsDir, chunk.path), chunk.contents)),
    ),
    writeFile(join(distDir, "build.json"), JSON.stringify({ JsBundleHash: jsHash }) + "\n"),
  ]);
  await precompress(distDir);

  console.log(`web: built dist/ in ${Date.now() - started} ms (JsBundleHash ${jsHash})`);
  for (const name of APP_NAMES) {
    console.log(sizeLine(`assets/${names[name].js}`, js[name].entry));
    console.log(sizeLine(`assets/${names[name].css}`, css[name]));
    console.log(sizeLine(APPS[name].page, pages[name]));
  }
  for (const name of APP_NAMES)
    for (const chunk of js[name].chunks) {
      const note = js[name].preload.includes(chunk.path) ? ` (${name} first load)` : "";
      console.log(sizeLine(`assets/${chunk.path}${note}`, chunk.contents));
    }
}

await main();
