/**
 * The systemd units (issue #11 items 2, 11): `systemd-analyze verify` finds nothing in them, in a
 * temporary root holding the system's own units, `kill` and the packages' wrappers (the paths the
 * units name must exist); `systemd-analyze security --offline` rates them no worse than the figures
 * in packaging/README.md; the agent gets CAP_NET_ADMIN and no other capability.
 * Skipped, with a warning, without systemd-analyze.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");
const analyze = spawnSync("systemd-analyze", ["--version"]);
const missing =
  analyze.error || analyze.status !== 0 ? "systemd-analyze (Debian package systemd) is not installed" : "";
if (missing) console.warn(`packaging: unit checks SKIPPED: ${missing}`);

/** Highest acceptable `systemd-analyze security` exposure (lower is better; see packaging/README.md). */
const EXPOSURE_LIMIT = { "postern-server": 1.4, "postern-agent": 1.9 } as const;

describe.skipIf(missing !== "")("systemd units", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "postern-units-"));
    for (const dir of ["usr/bin", "usr/lib/systemd/system", "etc/postern"])
      mkdirSync(join(root, dir), { recursive: true });
    symlinkSync("usr/bin", join(root, "bin"));
    symlinkSync("usr/lib", join(root, "lib"));
    cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), {
      recursive: true,
      verbatimSymlinks: true,
    });
    copyFileSync("/usr/bin/kill", join(root, "usr/bin/kill"));
    for (const bin of ["postern-server", "postern-agent"])
      copyFileSync(join(repo, "packaging/bin", bin), join(root, "usr/bin", bin));
    for (const unit of ["postern-server.service", "postern-agent.service"])
      copyFileSync(join(repo, "systemd", unit), join(root, "usr/lib/systemd/system", unit));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const name of ["postern-server", "postern-agent"] as const) {
    it(`${name}.service passes systemd-analyze verify`, () => {
      const r = spawnSync(
        "systemd-analyze",
        ["verify", "--man=no", `--root=${root}`, `/usr/lib/systemd/system/${name}.service`],
        { encoding: "utf8", env: { ...process.env, SYSTEMD_LOG_LEVEL: "notice" }, timeout: 30_000 },
      );
      expect(r.stderr + r.stdout).toBe("");
      expect(r.status).toBe(0);
    });

    it(`${name}.service is exposed no more than ${EXPOSURE_LIMIT[name]}`, () => {
      const r = spawnSync(
        "systemd-analyze",
        ["security", "--offline=true", `--root=${root}`, "--no-pager", `usr/lib/systemd/system/${name}.service`],
        { encoding: "utf8", cwd: root, timeout: 30_000 },
      );
      const level = /Overall exposure level for \S+: ([\d.]+)/.exec(r.stdout)?.[1];
      expect(level, r.stdout + r.stderr).toBeDefined();
      expect(Number(level)).toBeLessThanOrEqual(EXPOSURE_LIMIT[name]);
    });
  }

  it("gives the agent CAP_NET_ADMIN and nothing else, and the server no capability but binding low ports", () => {
    const agent = readFileSync(join(repo, "systemd/postern-agent.service"), "utf8");
    expect(agent).toMatch(/^AmbientCapabilities=CAP_NET_ADMIN$/m);
    expect(agent).toMatch(/^CapabilityBoundingSet=CAP_NET_ADMIN$/m);
    expect(agent).not.toMatch(/^User=/m);
    const server = readFileSync(join(repo, "systemd/postern-server.service"), "utf8");
    expect(server).toMatch(/^User=postern$/m);
    expect(server).toMatch(/^CapabilityBoundingSet=CAP_NET_BIND_SERVICE$/m);
    for (const unit of [agent, server]) {
      for (const line of [
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "PrivateTmp=yes",
        "SystemCallFilter=@system-service",
      ])
        expect(unit.split("\n")).toContain(line);
    }
    expect(server.split("\n")).toContain("StateDirectory=postern");
  });
});
