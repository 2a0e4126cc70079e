/**
 * The configuration file and the environment (issue #11 item 5): the TOML keys stand for the
 * POSTERN_* variables, the environment wins, every problem is listed naming where it came from,
 * and `postern-server --check-config` exits 0 or 2.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readServerConfig } from "./index.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "postern-config-")), "server.toml");
  writeFileSync(file, text);
  return file;
}

describe("server configuration file", () => {
  it("reads every key of the file", () => {
    const file = configFile(`
data_dir = "/var/lib/postern"
listen = "0.0.0.0:8443"
log_level = "warn"
trusted_proxies = ["10.0.0.5", "192.168.0.0/24"]
agent_token_hours = 2

[tls]
mode = "self-signed"

[discovery]
ports = [222, 3389]

[metrics]
token = "0123456789abcdef-token"
`);
    const r = readServerConfig({}, file);
    expect(r).toMatchObject({
      ok: true,
      value: {
        dataDir: "/var/lib/postern",
        listen: "0.0.0.0:8443",
        logLevel: "warn",
        trustedProxies: ["10.0.0.5", "192.168.0.0/24"],
        agentTokenHours: 2,
        tls: { mode: "self-signed" },
        discovery: { ports: [222, 3389] },
        metricsToken: "0123456789abcdef-token",
      },
    });
  });

  it("lets the environment override the file, key by key", () => {
    const file = configFile(`listen = "0.0.0.0:8443"\nlog_level = "warn"\n`);
    const r = readServerConfig({ POSTERN_LISTEN: "127.0.0.1:9000" }, file);
    expect(r).toMatchObject({ ok: true, value: { listen: "127.0.0.1:9000", logLevel: "warn" } });
  });

  it("names the config file through POSTERN_CONFIG too, and serves TLS from certificate files", () => {
    const file = configFile(`[tls]\ncert = "/etc/postern/cert.pem"\nkey = "/etc/postern/key.pem"\n`);
    const r = readServerConfig({ POSTERN_CONFIG: file });
    expect(r).toMatchObject({
      ok: true,
      value: { tls: { mode: "files", certFile: "/etc/postern/cert.pem", keyFile: "/etc/postern/key.pem" } },
    });
  });

  it("lists every problem, each naming the file key or the variable it came from", () => {
    const file = configFile(`
listen = "nowhere"
log_level = 3
colour = "blue"
trusted_proxies = ["not-an-ip"]

[metrics]
token = "short"
`);
    const r = readServerConfig({ POSTERN_AGENT_TOKEN_HOURS: "-1" }, file);
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/server\.toml: log_level: must be a string/),
        expect.stringMatching(/server\.toml: colour: unknown key/),
        expect.stringMatching(/server\.toml: listen: must be host:port/),
        expect.stringMatching(/server\.toml: trusted_proxies: must be IPs or CIDRs/),
        expect.stringMatching(/server\.toml: metrics\.token: must be at least 16 characters/),
        expect.stringMatching(/^POSTERN_AGENT_TOKEN_HOURS: must be hours/),
      ]),
    );
  });

  it("reports a TOML syntax error with its line, and a missing file", () => {
    const bad = readServerConfig({}, configFile(`listen = "a"\nlog_level = \n`));
    expect(bad).toMatchObject({ ok: false, problems: [expect.stringMatching(/not valid TOML \(line 2/)] });
    const missing = readServerConfig({}, "/nonexistent/server.toml");
    expect(missing).toMatchObject({ ok: false, problems: [expect.stringMatching(/cannot be read \(ENOENT\)/)] });
  });

  it("refuses half a certificate pair and self-signed with files", () => {
    const half = readServerConfig({ POSTERN_TLS_CERT: "/c.pem" });
    expect(half).toMatchObject({ ok: false, problems: [expect.stringMatching(/set both POSTERN_TLS_CERT/)] });
    const both = readServerConfig({
      POSTERN_TLS: "self-signed",
      POSTERN_TLS_CERT: "/c.pem",
      POSTERN_TLS_KEY: "/k.pem",
    });
    expect(both).toMatchObject({ ok: false, problems: [expect.stringMatching(/exclude each other/)] });
    expect(readServerConfig({ POSTERN_TLS: "on" })).toMatchObject({ ok: false });
  });

  it("postern-server --check-config exits 0 when good and 2 listing the problems", () => {
    const good = configFile(`listen = "127.0.0.1:8080"\n`);
    const env = { PATH: process.env["PATH"] ?? "" };
    const out = execFileSync(process.execPath, [MAIN, "--config", good, "--check-config"], { env, encoding: "utf8" });
    expect(out).toContain("configuration OK");
    const bad = configFile(`listen = "x"\ncolour = 1\n`);
    const r = spawnSync(process.execPath, [MAIN, "--config", bad, "--check-config"], { env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("colour: unknown key");
    expect(r.stderr).toContain("listen: must be host:port");
  });
});
