/**
 * /install (issue #11 item 3): the agent one-liner's script with the server's URL and pins filled in,
 * run with the real `sh` for its refusals; the agent package or a clear 404; and the install command
 * the agents page shows.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiRequest, createHarness, signInAdmin } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { createApp } from "../app.ts";
import { installCommand, installScript, tlsPinOf } from "../services/agent-install.ts";
import type { TlsPin } from "../services/agent-install.ts";
import { makeSelfSigned } from "../http/tls.ts";
import { NO_AGENT_PACKAGE } from "./install.ts";

/** Runs the script text with sh and `args`; answers the exit status and stderr. */
function runScript(script: string, args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync("sh", ["-s", "--", ...args], { input: script, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, stderr: r.stderr };
}

describe("/install", () => {
  let h: Harness;
  let dir: string;
  let pin: TlsPin;
  beforeEach(async () => {
    h = await createHarness();
    dir = mkdtempSync(join(tmpdir(), "postern-install-"));
    pin = tlsPinOf((await makeSelfSigned(["postern.test"])).cert);
  });
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers the install script with the server's URL, and the script refuses plain http elsewhere", async () => {
    const r = await apiRequest(h, "GET", "/install/agent.sh");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/x-shellscript");
    expect(r.headers.get("cache-control")).toBe("no-store");
    const script = String(r.body);
    expect(script).toMatch(/^#!\/bin\/sh\n/);
    expect(script).toContain("SERVER='http://postern.test'");
    expect(script).toContain("PIN=''");
    expect(spawnSync("sh", ["-n"], { input: script }).status).toBe(0);

    const plain = runScript(script, ["--token", "t0k3n"]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain("refusing to install over plain http from http://postern.test");
    const other = runScript(script, ["--token", "t0k3n", "--server", "http://192.0.2.10:8080"]);
    expect(other.stderr).toContain("refusing to install over plain http");
    const noToken = runScript(script, []);
    expect(noToken.status).toBe(1);
    expect(noToken.stderr).toContain("--token is required");
    expect(runScript(script, ["--bogus"]).status).toBe(2);
  });

  it("lets the script use plain http to loopback: it goes on to download, and stops on a missing package", async () => {
    const app = createApp(h.services, "/nonexistent", [], undefined, { agentPackage: join(dir, "absent.deb") });
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const script = await (await fetch(`${base}/install/agent.sh`)).text();
      expect(script).toContain(`SERVER='${base}'`);
      // Asynchronous: the server answering the script's curl runs in this process.
      const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const p = spawn("sh", ["-s", "--", "--token", "t0k3n"], { stdio: ["pipe", "ignore", "pipe"] });
        let stderr = "";
        p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
        p.on("close", (status) => {
          clearTimeout(timer);
          resolve({ status, stderr });
        });
        p.stdin.end(script);
      });
      expect(r.status).toBe(1);
      expect(r.stderr).not.toContain("refusing");
      if (process.getuid?.() === 0) expect(r.stderr).toContain(`could not download ${base}/install/postern-agent.deb`);
      else expect(r.stderr).toContain("run it as root");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("fills in the pins of a self-signed certificate, and the agents page's command carries them", async () => {
    const app = createApp(h.services, "/nonexistent", [], undefined, { selfSignedPin: () => pin });
    const pinned = { ...h, app };
    const script = String((await apiRequest(pinned, "GET", "/install/agent.sh")).body);
    expect(script).toContain(`PIN='${pin.spki}'`);
    expect(script).toContain(`FINGERPRINT='${pin.fingerprint}'`);

    const cookie = await signInAdmin(pinned);
    const created = await apiRequest(pinned, "POST", "/api/admin/agents", { Name: "edge-1" }, { cookie });
    expect(created.status).toBe(201);
    const agent = created.body as { Token: string; InstallCommand: string };
    expect(agent.InstallCommand).toBe(
      `curl -fsSL --insecure --pinnedpubkey sha256//${pin.spki} http://postern.test/install/agent.sh` +
        ` | sudo sh -s -- --token ${agent.Token} --server-fingerprint ${pin.fingerprint}`,
    );
    const plain = await apiRequest(h, "POST", "/api/admin/agents", { Name: "edge-2" }, { cookie });
    expect((plain.body as { InstallCommand: string }).InstallCommand).toBe(
      `curl -fsSL http://postern.test/install/agent.sh | sudo sh -s -- --token ${(plain.body as { Token: string }).Token}`,
    );
  });

  it("serves the agent package, or says why it cannot", async () => {
    const missing = createApp(h.services, "/nonexistent", [], undefined, { agentPackage: join(dir, "absent.deb") });
    const r404 = await apiRequest({ ...h, app: missing }, "GET", "/install/postern-agent.deb");
    expect(r404.status).toBe(404);
    expect(r404.body).toBe(NO_AGENT_PACKAGE);

    const deb = join(dir, "postern-agent.deb");
    const bytes = Buffer.from("!<arch>\ndebian-binary   fake package bytes\n");
    writeFileSync(deb, bytes);
    const app = createApp(h.services, "/nonexistent", [], undefined, { agentPackage: deb });
    const res = await app.request("http://postern.test/install/postern-agent.deb");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.debian.binary-package");
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
  });

  it("refuses URLs and pins that cannot go into a shell command", () => {
    expect(() => installCommand("https://x.test/'; rm -rf /", "t")).toThrow(/not a server URL/);
    expect(() => installScript("https://x.test", { fingerprint: "AA", spki: pin.spki })).toThrow(/malformed/);
    expect(installCommand("https://postern.example.com:8443/", "tok")).toBe(
      "curl -fsSL https://postern.example.com:8443/install/agent.sh | sudo sh -s -- --token tok",
    );
  });
});
