/**
 * The example vendor scripts of agent/scripts/ (issue #10 item 6): each is valid POSIX sh, executable,
 * and refuses an unknown action with exit 2 before it talks to any device.
 */
import { readdir, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";

const dir = fileURLToPath(new URL("../../agent/scripts/", import.meta.url));
const runner = new ExecaRunner({ defaultTimeoutMs: 10_000 });

describe("example vendor scripts", async () => {
  const scripts = (await readdir(dir)).filter((f) => f.endsWith(".sh"));
  it("ship one per vendor without a dedicated form", () => {
    expect(scripts.sort()).toEqual(["checkpoint.sh", "digitalocean.sh", "juniper.sh", "mikrotik.sh", "pfsense.sh"]);
  });
  for (const name of scripts) {
    it(`${name}: parses, is executable, refuses an unknown action`, async () => {
      const path = join(dir, name);
      expect((await stat(path)).mode & 0o111).not.toBe(0);
      expect((await runner.run("sh", ["-n", path])).exitCode).toBe(0);
      const env = { URL: "http://127.0.0.1:9", USERNAME: "u", PASSWORD: "p", POLICY: "p", knoc_cidr: "192.0.2.1/32" };
      const r = await runner.run(path, ["nonsense", "acl", "192.0.2.1"], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("unknown action nonsense");
    });
  }
});
