/**
 * Turns a staged package tree into a .deb with dpkg-deb: file modes normalised, man pages and the
 * changelog gzipped (gzip -9n, reproducible), DEBIAN/control with Installed-Size, DEBIAN/md5sums,
 * and the maintainer scripts, conffiles and lintian overrides of `packaging/<name>/`.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { gzipSync } from "node:zlib";
import { join, relative } from "node:path";

/** The fields of DEBIAN/control that differ between the packages. */
export interface ControlFields {
  Package: string;
  Version: string;
  Section: string;
  Depends: string;
  Recommends?: string;
  Suggests?: string;
  /** First line: the synopsis; the rest: the long description (plain lines). */
  Description: string;
}

/** Maintainer named in DEBIAN/control and the changelog (POSTERN_MAINTAINER overrides it). */
export const MAINTAINER = process.env["POSTERN_MAINTAINER"] ?? "Postern developers <postern@example.org>";

/** xz level of the packages (POSTERN_DEB_XZ_LEVEL, 0-9, default 6; the tests use 1, ~4 times faster). */
const XZ_LEVEL = /^[0-9]$/.test(process.env["POSTERN_DEB_XZ_LEVEL"] ?? "") ? process.env["POSTERN_DEB_XZ_LEVEL"]! : "6";

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(p, ...walk(p));
    else out.push(p);
  }
  return out;
}

/** Writes `text` gzipped with -9 and no name or time stamp (as `gzip -9n`). */
export function writeGzip(file: string, text: string | Buffer): void {
  const gz = gzipSync(text, { level: 9 });
  gz[4] = gz[5] = gz[6] = gz[7] = 0; // MTIME
  gz[9] = 3; // OS: Unix
  writeFileSync(file, gz);
}

/**
 * Finishes `stage` (a package root with its files in place) and builds `outFile`.
 * `scriptsDir` holds postinst/prerm/postrm/conffiles and `lintian-overrides` (copied to
 * usr/share/lintian/overrides/<Package>).
 * @throws Error when dpkg-deb fails.
 */
export function buildDeb(stage: string, control: ControlFields, scriptsDir: string, outFile: string): void {
  const debian = join(stage, "DEBIAN");
  mkdirSync(debian, { recursive: true });
  const overrides = join(scriptsDir, "lintian-overrides");
  if (existsSync(overrides)) {
    const dir = join(stage, "usr/share/lintian/overrides");
    mkdirSync(dir, { recursive: true });
    copyFileSync(overrides, join(dir, control.Package));
  }
  // Modes: directories 0755; programs (the wrappers, the Node.js runtime, scripts with #!) 0755;
  // everything else, native addons and wasm included, 0644.
  for (const p of walk(stage)) {
    if (p.startsWith(debian)) continue;
    const st = statSync(p);
    const rel = relative(stage, p);
    const program =
      st.isFile() &&
      (rel.startsWith("usr/bin/") ||
        /^usr\/lib\/postern\/[^/]+\/node$/.test(rel) ||
        readFileSync(p).subarray(0, 2).toString() === "#!");
    chmodSync(p, st.isDirectory() || program ? 0o755 : 0o644);
  }
  for (const script of ["postinst", "prerm", "postrm", "preinst"]) {
    const from = join(scriptsDir, script);
    if (!existsSync(from)) continue;
    copyFileSync(from, join(debian, script));
    chmodSync(join(debian, script), 0o755);
  }
  if (existsSync(join(scriptsDir, "conffiles"))) {
    copyFileSync(join(scriptsDir, "conffiles"), join(debian, "conffiles"));
    chmodSync(join(debian, "conffiles"), 0o644);
  }
  const files = walk(stage).filter((p) => !p.startsWith(debian) && statSync(p).isFile());
  const sums = files
    .map((p) => `${createHash("md5").update(readFileSync(p)).digest("hex")}  ${relative(stage, p)}`)
    .sort()
    .join("\n");
  writeFileSync(join(debian, "md5sums"), `${sums}\n`, { mode: 0o644 });
  const installedKiB = Math.ceil(files.reduce((n, p) => n + statSync(p).size, 0) / 1024);
  const [synopsis, ...long] = control.Description.trim().split("\n");
  const fields = [
    `Package: ${control.Package}`,
    `Version: ${control.Version}`,
    "Architecture: amd64",
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedKiB}`,
    `Depends: ${control.Depends}`,
    ...(control.Recommends ? [`Recommends: ${control.Recommends}`] : []),
    ...(control.Suggests ? [`Suggests: ${control.Suggests}`] : []),
    `Section: ${control.Section}`,
    "Priority: optional",
    `Description: ${synopsis}`,
    ...long.map((l) => (l.trim() === "" ? " ." : ` ${l.trim()}`)),
  ];
  writeFileSync(join(debian, "control"), `${fields.join("\n")}\n`, { mode: 0o644 });
  execFileSync("dpkg-deb", ["--root-owner-group", "-Zxz", `-z${XZ_LEVEL}`, "--build", stage, outFile], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}
