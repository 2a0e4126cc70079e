/**
 * The knocproxy driver on a real HAProxy (issue #10 items 8 and 13): the ACL Name names the file
 * `<dir>/<Name>.acl` that HAProxy loads with `acl allowed src -f <file>`; the driver changes it over
 * the runtime API by that path, replaces it atomically (prepare/commit), and keeps the file in step so
 * a reload keeps the live set.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { KnocproxyDriver } from "../../agent/src/backends/knocproxy/driver.ts";
import { ACL_FILE_HEADER } from "../../agent/src/backends/haproxy/driver.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import { httpGetFrom, startHaproxy } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";

const haveHaproxy = await new ExecaRunner()
  .run("haproxy", ["-v"], { timeoutMs: 5_000 })
  .then((r) => r.exitCode === 0)
  .catch(() => false);
const HOUR = 3_600_000;

const fileEntries = async (file: string): Promise<string[]> =>
  (await readFile(file, "utf8")).split("\n").filter((l) => l !== "" && !l.startsWith("#"));

describe.skipIf(!haveHaproxy)("KnocproxyDriver on a real HAProxy", () => {
  let hx: HaproxyInstance;
  let driver: KnocproxyDriver;
  let url: string;
  const target: Target = {
    key: "acl-k",
    backendId: "b-k",
    backend: { knocproxy: { Protocol: "unix", Address: "/unused" } },
    acl: { knocproxy: { Name: "office_vpn" } },
  };

  beforeAll(async () => {
    hx = await startHaproxy({ aclFileName: "office_vpn.acl", initialEntries: ["127.0.0.9"] });
    url = `http://127.0.0.1:${hx.frontendPort}/`;
    driver = new KnocproxyDriver({ dir: hx.dir, address: { path: hx.socketPath } });
  });
  afterAll(async () => {
    await hx?.stop();
  });

  it("refuses before add, allows after add, refuses after remove; the file <Name>.acl follows", async () => {
    const now = Date.now();
    expect(await httpGetFrom("127.0.0.7", url)).toBe(403);
    expect(await driver.add(target, [{ ip: "127.0.0.7", expiresAt: now + HOUR }], now)).toEqual([
      { ip: "127.0.0.7", ok: true },
    ]);
    expect(await httpGetFrom("127.0.0.7", url)).toBe(200);
    expect(new Set(await fileEntries(hx.aclFile))).toEqual(new Set(["127.0.0.9", "127.0.0.7"]));
    expect((await readFile(hx.aclFile, "utf8")).startsWith(ACL_FILE_HEADER)).toBe(true);
    expect(await driver.remove(target, ["127.0.0.7", "127.0.0.6"])).toEqual([
      { ip: "127.0.0.7", ok: true },
      { ip: "127.0.0.6", ok: true },
    ]);
    expect(await httpGetFrom("127.0.0.7", url)).toBe(403);
    expect(await fileEntries(hx.aclFile)).toEqual(["127.0.0.9"]);
  });

  it("replaces the whole ACL atomically with prepare/commit, and a reload keeps it", async () => {
    const now = Date.now();
    expect(
      await driver.replace(
        target,
        [
          { ip: "127.0.0.5", expiresAt: now + HOUR },
          { ip: "127.0.0.4", expiresAt: now + HOUR },
        ],
        now,
      ),
    ).toEqual([
      { ip: "127.0.0.5", ok: true },
      { ip: "127.0.0.4", ok: true },
    ]);
    expect(await httpGetFrom("127.0.0.9", url)).toBe(403);
    expect(await httpGetFrom("127.0.0.5", url)).toBe(200);
    expect((await driver.list(target)).sort()).toEqual(["127.0.0.4", "127.0.0.5"]);
    await hx.reload();
    expect(await httpGetFrom("127.0.0.4", url)).toBe(200);
    expect(await httpGetFrom("127.0.0.9", url)).toBe(403);
  });

  it("says how to load the file when HAProxy has no ACL from it", async () => {
    const other: Target = { ...target, acl: { knocproxy: { Name: "not_loaded" } } };
    await expect(driver.list(other)).rejects.toThrow(
      `HAProxy has no ACL loaded from ${hx.dir}/not_loaded.acl; add "acl <name> src -f ${hx.dir}/not_loaded.acl" to its configuration and reload it`,
    );
  });
});
