/**
 * TLS of the main listener (issue #11 items 4, 11): HTTPS with a self-signed certificate made once
 * and kept, its fingerprint; HSTS and `__Host-` Secure cookies over TLS; certificate files read
 * again on SIGHUP by the real `postern-server` process; a key that does not match is refused.
 */
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../server.ts";
import type { RunningServer } from "../server.ts";
import { createLogger } from "../logger.ts";
import { makeSelfSigned, readCredentials, selfSignedPaths } from "./tls.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const CLI = fileURLToPath(new URL("../../../cli/src/main.ts", import.meta.url));

/** The SHA-256 fingerprint of the certificate a TLS listener presents. */
function presentedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? "";
      s.end();
      resolve(fp);
    });
    s.once("error", reject);
  });
}

/** One HTTPS request trusting only `ca`; answers status, headers and body. */
function httpsRequest(
  url: string,
  ca: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request(url, { ca, method: opts.method ?? "GET", headers: opts.headers ?? {} }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    r.once("error", reject);
    r.end(opts.body);
  });
}

const running: RunningServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
  for (const c of children.splice(0)) if (c.pid !== undefined && c.exitCode === null) process.kill(c.pid, "SIGTERM");
});

describe("TLS of the main listener", () => {
  it("serves HTTPS with a self-signed certificate made once and kept; HSTS and __Host- Secure cookies", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "postern-tls-"));
    const log = createLogger("silent");
    const first = await startServer({
      dataDir,
      listen: "127.0.0.1:0",
      migrate: true,
      logger: log,
      tls: { mode: "self-signed" },
    });
    running.push(first);
    expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const certPem = readFileSync(selfSignedPaths(dataDir).cert, "utf8");
    expect(first.tlsFingerprint).toBe(new X509Certificate(certPem).fingerprint256);
    expect(await presentedFingerprint(first.port)).toBe(first.tlsFingerprint);

    // The certificate names 127.0.0.1, so a client trusting it alone verifies the server in full.
    const status = await httpsRequest(`${first.url}/api/system_status`, certPem);
    expect(status.status).toBe(200);
    expect(status.headers["strict-transport-security"]).toMatch(/max-age=\d+/);

    await first.services.adminSessions.createLocalAdmin({ userName: "root", name: "root", password: "root-password" });
    const login = await httpsRequest(`${first.url}/api/admin/login`, certPem, {
      method: "POST",
      headers: { "content-type": "application/json", origin: first.url },
      body: JSON.stringify({ UserName: "root", Password: "root-password" }),
    });
    expect(login.status).toBe(204);
    const cookie = String(login.headers["set-cookie"]);
    expect(cookie).toMatch(/^__Host-postern_admin_session=/);
    expect(cookie).toMatch(/; Secure/i);

    await first.close();
    running.pop();
    const second = await startServer({ dataDir, listen: "127.0.0.1:0", logger: log, tls: { mode: "self-signed" } });
    running.push(second);
    expect(second.tlsFingerprint).toBe(first.tlsFingerprint);
  });

  it("refuses a key that does not belong to the certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-tls-"));
    const a = await makeSelfSigned(["localhost"]);
    const b = await makeSelfSigned(["localhost"]);
    writeFileSync(join(dir, "cert.pem"), a.cert);
    writeFileSync(join(dir, "key.pem"), b.key);
    expect(() => readCredentials(join(dir, "cert.pem"), join(dir, "key.pem"))).toThrow(/does not belong/);
    expect(() => readCredentials(join(dir, "none.pem"), join(dir, "key.pem"))).toThrow(/cannot be read \(ENOENT\)/);
  });

  it("postern-server reads the certificate files again on SIGHUP and keeps the old pair when the new one is bad", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-tls-"));
    const certFile = join(dir, "cert.pem");
    const keyFile = join(dir, "key.pem");
    const a = await makeSelfSigned(["localhost", "127.0.0.1"]);
    writeFileSync(certFile, a.cert);
    writeFileSync(keyFile, a.key);
    execFileSync(process.execPath, [CLI, "db", "migrate", "--data-dir", join(dir, "data")], { stdio: "ignore" });
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env["PATH"] ?? "",
        POSTERN_DATA_DIR: join(dir, "data"),
        POSTERN_LISTEN: "127.0.0.1:0",
        POSTERN_LOG_LEVEL: "silent",
        POSTERN_TLS_CERT: certFile,
        POSTERN_TLS_KEY: keyFile,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    await expect.poll(() => stderr, { timeout: 20_000 }).toMatch(/serving https:\/\/127\.0\.0\.1:\d+/);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(stderr)![1]);
    expect(stderr).toContain(new X509Certificate(a.cert).fingerprint256);
    expect(await presentedFingerprint(port)).toBe(new X509Certificate(a.cert).fingerprint256);

    // A key of another certificate: the reload fails and the old pair stays.
    const b = await makeSelfSigned(["localhost", "127.0.0.1"]);
    writeFileSync(certFile, b.cert);
    process.kill(child.pid!, "SIGHUP");
    await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/TLS reload failed, keeping the old certificate/);
    expect(await presentedFingerprint(port)).toBe(new X509Certificate(a.cert).fingerprint256);

    writeFileSync(keyFile, b.key);
    process.kill(child.pid!, "SIGHUP");
    await expect
      .poll(() => presentedFingerprint(port), { timeout: 10_000 })
      .toBe(new X509Certificate(b.cert).fingerprint256);
  });
});
