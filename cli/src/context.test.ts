/**
 * The CLI's data directory (issue #11 item 1): `--data-dir`, else POSTERN_DATA_DIR, else the
 * `data_dir` of the configuration file POSTERN_CONFIG names (the packaged `postern` names
 * /etc/postern/server.toml), else ./data; a bad configuration file is an error listing its problems.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dataDirOf, serverConfigOf } from "./context.ts";

describe("dataDirOf", () => {
  let dir: string;
  const saved = { config: process.env["POSTERN_CONFIG"], data: process.env["POSTERN_DATA_DIR"] };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "postern-cli-config-"));
    delete process.env["POSTERN_CONFIG"];
    delete process.env["POSTERN_DATA_DIR"];
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of [
      ["POSTERN_CONFIG", saved.config],
      ["POSTERN_DATA_DIR", saved.data],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("takes data_dir from the configuration file, below --data-dir and POSTERN_DATA_DIR", () => {
    const file = join(dir, "server.toml");
    writeFileSync(file, `data_dir = "${join(dir, "var")}"\nlisten = "0.0.0.0:8443"\n[tls]\nmode = "self-signed"\n`);
    expect(dataDirOf({})).toBe(resolve("./data"));
    process.env["POSTERN_CONFIG"] = file;
    expect(dataDirOf({})).toBe(join(dir, "var"));
    expect(serverConfigOf()?.tls).toEqual({ mode: "self-signed" });
    process.env["POSTERN_DATA_DIR"] = join(dir, "env");
    expect(dataDirOf({})).toBe(join(dir, "env"));
    expect(dataDirOf({ dataDir: join(dir, "flag") })).toBe(join(dir, "flag"));
  });

  it("refuses a bad configuration file with its problems", () => {
    const file = join(dir, "server.toml");
    writeFileSync(file, `listen = "nowhere"\n`);
    process.env["POSTERN_CONFIG"] = file;
    expect(() => dataDirOf({})).toThrow(/bad configuration:\n.*listen.*host:port/);
  });
});
