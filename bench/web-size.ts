/**
 * Web bundle size benchmark (design.md "Performance targets": user dashboard JavaScript ≤ 150 KB
 * gzip on first load; reported, never asserted).
 *
 * Run from the repository root: `node bench/web-size.ts [--no-build] [--no-browser]`.
 *
 * 1. A fresh production build of the portal (`web/scripts/build.ts`), unless `--no-build`.
 * 2. Static first load: the entry script of `web/dist/index.html` and every chunk it imports
 *    statically, followed through the files themselves (`import … from "./chunks/…"`); chunks only
 *    reached through `import()` (two-factor pages, older Home, change-password dialog and its
 *    strength estimator, German catalog) are listed apart as loaded on demand.
 * 3. Measured first load (when Chromium is installed, unless `--no-browser`): a real server with a
 *    signed-in user; a fresh browser context (empty cache) opens /home/new and every script it
 *    receives until the network is idle is counted.
 * Sizes: raw bytes and gzip level 9 per file (what a compressing proxy would send; the server
 * itself sends files uncompressed), in KB of 1,024 bytes.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { chromiumAvailable, launchBrowser, newPage } from "../test/support/browser.ts";
import { createUser, startStack } from "../test/support/stack.ts";
import type { Stack } from "../test/support/stack.ts";

/** The design target for the dashboard's first-load JavaScript, in KB gzip. */
const TARGET_KB_GZIP = 150;

const { values: opts } = parseArgs({
  options: { "no-build": { type: "boolean", default: false }, "no-browser": { type: "boolean", default: false } },
});
const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "web/dist");

interface Sized {
  name: string;
  raw: number;
  gzip: number;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const sized = (name: string, content: Uint8Array): Sized => ({
  name,
  raw: content.byteLength,
  gzip: gzipSync(content, { level: 9 }).byteLength,
});
const total = (files: readonly Sized[]): Sized => ({
  name: "total",
  raw: files.reduce((s, f) => s + f.raw, 0),
  gzip: files.reduce((s, f) => s + f.gzip, 0),
});
const verdict = (gzip: number): string =>
  gzip <= TARGET_KB_GZIP * 1024
    ? `within the ${TARGET_KB_GZIP} KB gzip target`
    : `OVER the ${TARGET_KB_GZIP} KB gzip target`;

function table(files: readonly Sized[]): void {
  for (const f of files)
    console.log(`  ${f.name.padEnd(56)} ${kb(f.raw).padStart(10)} raw ${kb(f.gzip).padStart(10)} gzip`);
}

/** Relative specifiers of the static imports of a built ES module (dynamic `import()` left out). */
function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/(?:^|[;}\s)])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g))
    if (m[1]) found.add(m[1]);
  return [...found];
}

/** The entry and its static imports, transitively, as paths under dist/ ("/assets/…"). */
function firstLoadFiles(): { entry: string; files: string[] } {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const entry = /<script type="module" src="([^"]+)"/.exec(html)?.[1];
  if (!entry) throw new Error("no module script in web/dist/index.html");
  const files: string[] = [];
  const visit = (path: string): void => {
    if (files.includes(path)) return;
    files.push(path);
    for (const spec of staticImports(readFileSync(join(dist, path), "utf8")))
      visit(new URL(spec, `http://x${path}`).pathname);
  };
  visit(entry);
  return { entry, files };
}

/** Every JavaScript file of the build, as paths under dist/. */
function allScripts(): string[] {
  const out = execFileSync("find", [join(dist, "assets"), "-name", "*.js"], { encoding: "utf8" });
  return out
    .split("\n")
    .filter(Boolean)
    .map((p) => p.slice(dist.length))
    .sort();
}

/** Opens /home/new in a fresh context with a signed-in user and measures every script received. */
async function measureInBrowser(): Promise<Sized[]> {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  try {
    stack = await startStack();
    await createUser(stack, "bench", "bench-password", []);
    browser = await launchBrowser();
    const signIn = await newPage(browser);
    await signIn.page.goto(stack.server.url + "/");
    await signIn.page.getByLabel("Username").fill("bench");
    await signIn.page.getByLabel("Password").fill("bench-password");
    await signIn.page.getByRole("button", { name: "Log in" }).click();
    await signIn.page.waitForURL(/\/home/, { timeout: 15_000 });
    const cookies = await signIn.context.cookies();
    await signIn.context.close();

    const { context, page } = await newPage(browser);
    await context.addCookies(cookies);
    const scripts: Promise<Sized>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script")
        scripts.push(response.body().then((body) => sized(new URL(response.url()).pathname, body)));
    });
    await page.goto(stack.server.url + "/home/new", { waitUntil: "networkidle", timeout: 30_000 });
    await page.getByRole("heading", { name: "Hello, bench" }).waitFor({ timeout: 10_000 });
    const result = await Promise.all(scripts);
    await context.close();
    return result;
  } finally {
    await browser?.close();
    await stack?.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `Web size: the user dashboard's JavaScript on first load (design.md target: ≤ ${TARGET_KB_GZIP} KB gzip)\n`,
  );
  if (!opts["no-build"]) {
    const started = Date.now();
    execFileSync(process.execPath, [join(root, "web/scripts/build.ts")], { stdio: ["ignore", "ignore", "inherit"] });
    console.log(`fresh build of web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const hash = (JSON.parse(readFileSync(join(dist, "build.json"), "utf8")) as { JsBundleHash: string }).JsBundleHash;
  console.log(`JsBundleHash ${hash}\n`);

  const { files } = firstLoadFiles();
  const first = files.map((f) => sized(f, readFileSync(join(dist, f))));
  console.log("Static first load (entry + static imports):");
  table(first);
  const sum = total(first);
  table([sum]);
  console.log(`  → ${kb(sum.gzip)} gzip: ${verdict(sum.gzip)}\n`);

  const onDemand = allScripts()
    .filter((f) => !files.includes(f))
    .map((f) => sized(f, readFileSync(join(dist, f))));
  console.log("Loaded on demand (import(): not part of the first load):");
  table(onDemand);
  console.log("");

  if (opts["no-browser"]) return;
  if (!chromiumAvailable) {
    console.log("Measured first load: skipped (/usr/bin/chromium is not installed)");
    return;
  }
  const measured = await measureInBrowser();
  console.log("Measured first load (Chromium, empty cache, signed in, /home/new until the network is idle):");
  table(measured);
  const measuredSum = total(measured);
  table([measuredSum]);
  console.log(`  → ${kb(measuredSum.gzip)} gzip: ${verdict(measuredSum.gzip)}`);
  const unexpected = measured.filter((m) => !files.includes(m.name)).map((m) => m.name);
  if (unexpected.length > 0) console.log(`  scripts beyond the static first load: ${unexpected.join(", ")}`);
}

try {
  await main();
} catch (err) {
  console.error(`web-size: ${(err as Error).message}`);
  process.exitCode = 1;
}
