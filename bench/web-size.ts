/**
 * Web bundle size benchmark (docs/reference.md design "Performance targets"; issue #9 item 22): the first-load
 * JavaScript of both web apps as sent over the wire, against the targets of bench/README.md —
 * the portal's user dashboard ≤ 150 KB, the admin console ≤ 300 KB (compressed as the server
 * sends it). Reported, never asserted.
 *
 * Run from the repository root: `node bench/web-size.ts [--no-build] [--no-browser]`.
 *
 * 1. A fresh production build (`web/scripts/build.ts`), unless `--no-build`.
 * 2. Static first load per app: the entry script of `web/dist/index.html` (portal) or
 *    `web/dist/admin.html` (admin console) and every chunk it imports statically, followed through
 *    the files themselves (`import … from "./chunks/…"`); chunks only reached through `import()`
 *    are listed apart as loaded on demand. Sizes: raw, and the `.br` / `.gz` copies the build wrote
 *    (what the server sends by Accept-Encoding).
 * 3. Measured first load (when Chromium is installed, unless `--no-browser`): a real server, a
 *    fresh browser context (empty cache) signed in as a user on /home/new and as an admin on
 *    /admin/home; every script received until the network is idle is counted with its size on the
 *    wire (the encoded body Chromium received).
 * Sizes in KB of 1,024 bytes.
 */
import { execFileSync } from "node:child_process";
import { reportFigures } from "./lib/report.ts";
import type { Figure } from "./lib/report.ts";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Browser, Cookie, Page } from "playwright-core";
import { chromiumAvailable, launchBrowser, newPage } from "../test/support/browser.ts";
import { createUser, startStack } from "../test/support/stack.ts";
import type { Stack } from "../test/support/stack.ts";

/** The apps measured: their page in dist/ and their first-load target in KB (compressed, brotli). */
const APPS = {
  portal: { page: "index.html", targetKb: 150 },
  admin: { page: "admin.html", targetKb: 300 },
} as const;
type App = keyof typeof APPS;

const { values: opts } = parseArgs({
  options: { "no-build": { type: "boolean", default: false }, "no-browser": { type: "boolean", default: false } },
});
const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "web/dist");

interface Sized {
  name: string;
  raw: number;
  gzip: number;
  brotli: number;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const fileSize = (path: string): number => (existsSync(path) ? statSync(path).size : Number.NaN);
const sizedFile = (name: string): Sized => ({
  name,
  raw: fileSize(join(dist, name)),
  gzip: fileSize(join(dist, `${name}.gz`)),
  brotli: fileSize(join(dist, `${name}.br`)),
});
const total = (files: readonly Sized[]): Sized => ({
  name: "total",
  raw: files.reduce((s, f) => s + f.raw, 0),
  gzip: files.reduce((s, f) => s + f.gzip, 0),
  brotli: files.reduce((s, f) => s + f.brotli, 0),
});
const verdict = (bytes: number, targetKb: number): string =>
  bytes <= targetKb * 1024 ? `within the ${targetKb} KB target` : `OVER the ${targetKb} KB target`;

function table(files: readonly Sized[]): void {
  for (const f of files)
    console.log(
      `  ${f.name.padEnd(52)} ${kb(f.raw).padStart(10)} raw ${kb(f.gzip).padStart(10)} gzip ${kb(f.brotli).padStart(10)} br`,
    );
}

/** Relative specifiers of the static imports of a built ES module (dynamic `import()` left out). */
function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/(?:^|[;}\s)])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g))
    if (m[1]) found.add(m[1]);
  return [...found];
}

/** An app's entry and its static imports, transitively, as paths under dist/ ("/assets/…"). */
function firstLoadFiles(app: App): string[] {
  const html = readFileSync(join(dist, APPS[app].page), "utf8");
  const entry = /<script type="module" src="([^"]+)"/.exec(html)?.[1];
  if (!entry) throw new Error(`no module script in web/dist/${APPS[app].page}`);
  const files: string[] = [];
  const visit = (path: string): void => {
    if (files.includes(path)) return;
    files.push(path);
    for (const spec of staticImports(readFileSync(join(dist, path), "utf8")))
      visit(new URL(spec, `http://x${path}`).pathname);
  };
  visit(entry);
  return files;
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

/** Opens `path` in a fresh context with `cookies` and measures every script: decoded size and bytes on the wire. */
async function measurePage(
  browser: Browser,
  url: string,
  cookies: Cookie[],
  ready: (page: Page) => Promise<void>,
): Promise<{ name: string; raw: number; wire: number; encoding: string }[]> {
  const { context, page } = await newPage(browser);
  await context.addCookies(cookies);
  const scripts: Promise<{ name: string; raw: number; wire: number; encoding: string }>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.push(
      (async () => {
        const [body, sizes, headers] = await Promise.all([
          response.body(),
          response.request().sizes(),
          response.allHeaders(),
        ]);
        return {
          name: new URL(response.url()).pathname,
          raw: body.byteLength,
          wire: sizes.responseBodySize,
          encoding: headers["content-encoding"] ?? "identity",
        };
      })(),
    );
  });
  await page.goto(url, { waitUntil: "networkidle", timeout: 30_000 });
  await ready(page);
  const result = await Promise.all(scripts);
  await context.close();
  return result;
}

/** Signs in through a form and returns the context's cookies. */
async function signIn(browser: Browser, url: string, user: string, password: string, landed: RegExp) {
  const { context, page } = await newPage(browser);
  await page.goto(url);
  await page.getByLabel("Username").fill(user);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(landed, { timeout: 15_000 });
  const cookies = await context.cookies();
  await context.close();
  return cookies;
}

async function measureInBrowser(): Promise<
  Record<App, { name: string; raw: number; wire: number; encoding: string }[]>
> {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  try {
    stack = await startStack();
    await createUser(stack, "bench", "bench-password", []);
    browser = await launchBrowser();
    const base = stack.server.url;
    const userCookies = await signIn(browser, base + "/", "bench", "bench-password", /\/home/);
    const portal = await measurePage(browser, base + "/home/new", userCookies, (page) =>
      page.getByRole("heading", { name: "Hello, bench" }).waitFor({ timeout: 10_000 }),
    );
    const adminCookies = await signIn(browser, base + "/admin", "admin", "admin-password", /\/admin\/home/);
    const admin = await measurePage(browser, base + "/admin/home", adminCookies, (page) =>
      page.getByRole("heading", { name: "Home" }).waitFor({ timeout: 10_000 }),
    );
    return { portal, admin };
  } finally {
    await browser?.close();
    await stack?.close();
  }
}

async function main(): Promise<void> {
  console.log(
    "Web size: first-load JavaScript of the portal (≤ 150 KB) and the admin console (≤ 300 KB), compressed\n",
  );
  if (!opts["no-build"]) {
    const started = Date.now();
    execFileSync(process.execPath, [join(root, "web/scripts/build.ts")], { stdio: ["ignore", "ignore", "inherit"] });
    console.log(`fresh build of web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const hash = (JSON.parse(readFileSync(join(dist, "build.json"), "utf8")) as { JsBundleHash: string }).JsBundleHash;
  console.log(`JsBundleHash ${hash}\n`);

  const firstLoad = new Set<string>();
  for (const app of Object.keys(APPS) as App[]) {
    const files = firstLoadFiles(app);
    for (const f of files) firstLoad.add(f);
    const sized = files.map(sizedFile);
    console.log(`${app}: static first load (${APPS[app].page}: entry + static imports):`);
    table(sized);
    const sum = total(sized);
    table([sum]);
    console.log(`  → ${kb(sum.brotli)} br, ${kb(sum.gzip)} gzip: ${verdict(sum.brotli, APPS[app].targetKb)}\n`);
  }

  console.log("Loaded on demand (import(): not part of either first load):");
  table(
    allScripts()
      .filter((f) => !firstLoad.has(f))
      .map(sizedFile),
  );
  console.log("");

  const notMeasured = (why: string): void =>
    reportFigures(
      (Object.keys(APPS) as App[]).map((app) => ({
        figure: `${app} first load on the wire`,
        target: `≤ ${APPS[app].targetKb} KB`,
        result: why,
        met: null,
      })),
    );
  if (opts["no-browser"]) return notMeasured("not measured (--no-browser)");
  if (!chromiumAvailable) {
    console.log("Measured first load: skipped (/usr/bin/chromium is not installed)");
    return notMeasured("not measured (no Chromium)");
  }
  const measured = await measureInBrowser();
  const figures: Figure[] = [];
  for (const app of Object.keys(APPS) as App[]) {
    const where = app === "portal" ? "/home/new" : "/admin/home";
    console.log(`${app}: measured in Chromium (empty cache, signed in, ${where} until the network is idle):`);
    for (const m of measured[app])
      console.log(
        `  ${m.name.padEnd(52)} ${kb(m.raw).padStart(10)} raw ${kb(m.wire).padStart(10)} on the wire (${m.encoding})`,
      );
    const raw = measured[app].reduce((s, m) => s + m.raw, 0);
    const wire = measured[app].reduce((s, m) => s + m.wire, 0);
    console.log(`  ${"total".padEnd(52)} ${kb(raw).padStart(10)} raw ${kb(wire).padStart(10)} on the wire`);
    console.log(`  → ${kb(wire)} on the wire: ${verdict(wire, APPS[app].targetKb)}\n`);
    figures.push({
      figure: `${app} first load on the wire`,
      target: `≤ ${APPS[app].targetKb} KB`,
      result: kb(wire),
      met: wire <= APPS[app].targetKb * 1024,
    });
  }
  reportFigures(figures);
}

try {
  await main();
} catch (err) {
  console.error(`web-size: ${(err as Error).message}`);
  process.exitCode = 1;
}
