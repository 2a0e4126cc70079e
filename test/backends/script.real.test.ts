/**
 * The script driver with real executables (issue #10 items 6 and 13): a shell script that writes what
 * it was given (arguments, knoc_* variables, the ACL's variables) to a file; failures, timeouts and
 * the agent's scriptsEnabled switch.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import type { Driver } from "../../agent/src/backends/driver.ts";
import { Enforcer } from "../../agent/src/enforcer.ts";
import { testDrivers } from "../support/drivers.ts";

const HOUR = 3_600_000;
let dir: string;

async function script(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

function target(command: string, env: Record<string, { Value: string; Encrypted: boolean }>, secrets = {}): Target {
  return {
    key: "acl-s",
    backendId: `b-${command}`,
    backend: {
      script: {
        Command: command,
        EnvVars: Object.keys(env).map((Name) => ({ Name, Sensitive: env[Name]!.Encrypted })),
      },
    },
    acl: { script: { Name: "office-vpn", EnvVars: env } },
    secrets,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "postern-script-real-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("script driver with a real executable", () => {
  it("runs Command <action> <ACL name> <address> with the knoc_* variables and the ACL's variables, Sensitive ones opened", async () => {
    const log = join(dir, "calls.log");
    const command = await script(
      "record.sh",
      `printf '%s|%s|%s|%s|%s|%s|%s|%s|%s\\n' "$1" "$2" "\${3:-}" "$knoc_action" "$knoc_aclname" "$knoc_username" "$knoc_cidr" "$knoc_ipaddr" "$TOKEN" >> "$LOG"`,
    );
    const { drivers, seal } = testDrivers();
    const t = target(
      command,
      { LOG: { Value: log, Encrypted: false }, TOKEN: { Value: "", Encrypted: true } },
      { "env:TOKEN": seal("s3cret-token") },
    );
    const driver = drivers.driverFor(t) as Driver;
    const now = Date.now();
    expect(await driver.add(t, [{ ip: "2001:DB8::5", expiresAt: now + HOUR, user: "alice" }], now)).toEqual([
      { ip: "2001:DB8::5", ok: true },
    ]);
    expect(await driver.remove(t, ["203.0.113.5"])).toEqual([{ ip: "203.0.113.5", ok: true }]);
    expect(await driver.replace!(t, [], now)).toEqual([]);
    expect((await readFile(log, "utf8")).trim().split("\n")).toEqual([
      "add|office-vpn|2001:db8::5|add|office-vpn|alice|2001:db8::5/128|2001:db8::5|s3cret-token",
      "del|office-vpn|203.0.113.5|del|office-vpn||203.0.113.5/32|203.0.113.5|s3cret-token",
      "flush|office-vpn||flush|office-vpn||||s3cret-token",
    ]);
  });

  it("fails an entry with the script's stderr, trimmed, when it exits non-zero", async () => {
    const command = await script("refuse.sh", `echo "  firewall said no  " >&2; exit 3`);
    const { drivers } = testDrivers();
    const t = target(command, {});
    const driver = drivers.driverFor(t) as Driver;
    const now = Date.now();
    expect(await driver.add(t, [{ ip: "192.0.2.1", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "192.0.2.1", ok: false, error: "firewall said no" },
    ]);
    const silent = await script("silent.sh", "exit 4");
    const t2 = target(silent, {});
    expect(await (drivers.driverFor(t2) as Driver).remove(t2, ["192.0.2.1"])).toEqual([
      { ip: "192.0.2.1", ok: false, error: `${silent} exited with code 4` },
    ]);
  });

  it("stops a script at its timeout", async () => {
    const command = await script("slow.sh", "sleep 10");
    const { drivers } = testDrivers({ scriptTimeoutMs: 300 });
    const t = target(command, {});
    const started = Date.now();
    const [out] = await (drivers.driverFor(t) as Driver).add(
      t,
      [{ ip: "192.0.2.1", expiresAt: started + HOUR }],
      started,
    );
    expect(out?.ok).toBe(false);
    expect(out?.error).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("never shows a Sensitive value that cannot be opened, and is off unless the agent enables scripts", async () => {
    const command = await script("ok.sh", "exit 0");
    const other = testDrivers();
    const { drivers } = testDrivers();
    const t = target(command, { TOKEN: { Value: "", Encrypted: true } }, { "env:TOKEN": other.seal("never-shown") });
    const [out] = await (drivers.driverFor(t) as Driver).add(
      t,
      [{ ip: "192.0.2.1", expiresAt: Date.now() + HOUR }],
      Date.now(),
    );
    expect(out).toEqual({
      ip: "192.0.2.1",
      ok: false,
      error: "sensitive variable TOKEN cannot be opened with this agent's key",
    });

    const off = testDrivers({ scriptsEnabled: false });
    const enforcer = new Enforcer({ backends: off.drivers, driftCheckSeconds: 0 });
    await enforcer.start();
    const ack = await enforcer.apply({
      seq: 1,
      ops: [{ op: "add", target: target(command, {}), ip: "192.0.2.1", expiresAt: Date.now() + HOUR }],
    });
    expect(ack.results).toEqual([
      {
        key: "acl-s",
        ip: "192.0.2.1",
        op: "add",
        ok: false,
        error: "custom scripts are disabled on this agent (set scriptsEnabled in its configuration)",
      },
    ]);
    await enforcer.stop();
  });
});
