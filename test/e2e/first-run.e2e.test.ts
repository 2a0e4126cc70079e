/**
 * The main job on a fresh data directory (issue #11 item 8): `scripts/start.sh`, run as root inside
 * a network namespace this test creates (its ipset sets and loopback are the namespace's own),
 * installs the free licence and creates the demo Knocs; signing in as demo and granting them puts
 * the address into the `postern-demo` ipset set and into the allowlist read with the printed key.
 * Stopping start.sh by its PID stops the server and the agent.
 */
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = process.getuid?.() === 0;
const tools = ["ip", "ipset"].every((t) => {
  try {
    execFileSync("which", [t], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
});
if (!root || !tools) console.warn("first-run e2e: SKIPPED: needs root, ip and ipset");

const ns = `pst-first-${process.pid}`;
const inNs = (args: string[], input?: string) =>
  execFileSync("ip", ["netns", "exec", ns, ...args], {
    encoding: "utf8",
    ...(input ? { input } : {}),
    timeout: 30_000,
  });

/** Signs demo in inside the namespace, grants every ACL of the status, and answers the statuses after a second. */
const GRANT_SCRIPT = `
const [url, pw] = process.argv.slice(1);
const json = { "content-type": "application/json" };
const login = await fetch(url + "/api/login", { method: "POST", headers: json, body: JSON.stringify({ UserName: "demo", Password: pw, KioskMode: false }) });
if (login.status !== 200) throw new Error("sign-in " + login.status);
const cookie = login.headers.get("set-cookie").split(";")[0];
const before = await (await fetch(url + "/api/status", { headers: { cookie } })).json();
for (const a of before.ACLs) await fetch(url + "/api/grant", { method: "POST", headers: { ...json, cookie }, body: JSON.stringify({ ACLID: a.ACLID, IPs: [] }) });
for (let i = 0; i < 50; i++) {
  const st = await (await fetch(url + "/api/status", { headers: { cookie } })).json();
  if (st.ACLs.every((a) => a.Status === 0 || a.Status === 6)) { console.log(JSON.stringify(st.ACLs.map((a) => a.Status))); process.exit(0); }
  await new Promise((r) => setTimeout(r, 100));
}
throw new Error("not granted in 5 s");
`;

describe.skipIf(!root || !tools)("scripts/start.sh on a fresh data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "postern-first-run-"));
  const dataDir = join(dir, "data");
  let start: ChildProcess | undefined;
  let log = "";
  afterAll(() => {
    if (start?.pid !== undefined && start.exitCode === null) process.kill(start.pid, "SIGKILL");
    try {
      execFileSync("ip", ["netns", "del", ns], { stdio: "ignore" });
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the whole loop: demo Knocs granted for real, then stops both processes", async () => {
    execFileSync("ip", ["netns", "add", ns]);
    execFileSync("ip", ["-n", ns, "link", "set", "lo", "up"]);
    start = spawn("ip", ["netns", "exec", ns, "bash", join(repo, "scripts/start.sh")], {
      env: { ...process.env, POSTERN_DATA_DIR: dataDir, POSTERN_LISTEN: "127.0.0.1:18080", POSTERN_SKIP_SETUP: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    start.stdout!.on("data", (d: Buffer) => (log += d.toString()));
    start.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    const firstRun = join(dataDir, "first-run.txt");
    await expect.poll(() => log, { timeout: 240_000, interval: 500 }).toContain("Demo ipset:");
    const text = readFileSync(firstRun, "utf8");
    expect(text).toContain("Admin console:  http://127.0.0.1:18080/admin");
    expect(text).toContain("Demo Knocs for demo (free licence installed)");
    const password = /sign in as {2}demo {2}\/ {2}(\S+)/.exec(text)![1]!;
    const curl = /curl -u "key:(\S+)" (\S+)/.exec(text)!;

    const statuses = inNs([
      process.execPath,
      "--input-type=module",
      "-e",
      GRANT_SCRIPT,
      "http://127.0.0.1:18080",
      password,
    ]);
    expect(JSON.parse(statuses)).toEqual(expect.arrayContaining([0, 6]));
    expect(inNs(["ipset", "list", "postern-demo"])).toMatch(/^127\.0\.0\.1 timeout \d+$/m);
    const list = inNs([
      process.execPath,
      "-e",
      `fetch(process.argv[1], { headers: { authorization: "Basic " + Buffer.from("key:" + process.argv[2]).toString("base64") } }).then(async (r) => console.log(r.status, await r.text()))`,
      curl[2]!,
      curl[1]!,
    ]);
    expect(list.trim()).toBe("200 127.0.0.1");

    const serverPid = Number(readFileSync(join(dataDir, "server.pid"), "utf8"));
    const exited = new Promise<void>((resolve) => start!.once("exit", () => resolve()));
    process.kill(start.pid!, "SIGTERM");
    await exited;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(() => alive(serverPid), { timeout: 10_000 }).toBe(false);
    const agents = () => {
      try {
        return execFileSync("pgrep", ["-f", join(dataDir, "agent.json")], { encoding: "utf8" }).trim();
      } catch {
        return "";
      }
    };
    await expect.poll(agents, { timeout: 10_000 }).toBe("");
    expect(existsSync(join(dataDir, "server.pid"))).toBe(false);
  });
});
