/**
 * `postern db backup` and `postern db restore` through the real CLI (issue #11 items 7, 11): a
 * backup taken while the server runs, restore refused while a server runs on the directory, a
 * restored directory whose server signs the user in with the password the backup held and keeps
 * the agent signing key, and a damaged archive refused with nothing changed.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "@postern/server";
import type { RunningServer } from "@postern/server";
import { createLogger } from "../../../server/src/logger.ts";
import { runAsync } from "../../../test/support/run-async.ts";

const CLI = fileURLToPath(new URL("../main.ts", import.meta.url));

/** Runs the CLI asynchronously (a server may answer from this process). */
const postern = (args: string[]) => runAsync(process.execPath, [CLI, ...args]);

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(dataDir: string, migrate = false): Promise<RunningServer> {
  const s = await startServer({ dataDir, listen: "127.0.0.1:0", migrate, logger: createLogger("silent") });
  servers.push(s);
  return s;
}

async function signIn(server: RunningServer, userName: string, password: string): Promise<number> {
  const r = await fetch(`${server.url}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ UserName: userName, Password: password, KioskMode: false }),
  });
  return r.status;
}

describe("postern db backup / restore", () => {
  it("backs up a running server and restores it into a new data directory that signs the user in", async () => {
    const root = mkdtempSync(join(tmpdir(), "postern-backup-"));
    const dataA = join(root, "a");
    const server = await start(dataA, true);
    await server.services.users.create(
      {
        Name: "Carol",
        UserName: "carol",
        Company: "",
        Duration: 60,
        SessionLimit: null,
        AuthType: "local",
        PlainPassword: "carol-password-1",
        ConfirmPassword: "carol-password-1",
        TOTPEnabled: false,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [],
      },
      { adminName: "test", ip: "127.0.0.1" },
    );
    expect(await signIn(server, "carol", "carol-password-1")).toBe(200);

    const file = join(root, "postern.backup.tar.gz");
    const backup = await postern(["--data-dir", dataA, "db", "backup", file]);
    expect(backup.stderr).toContain("written to");
    expect(backup.status).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await postern(["--data-dir", dataA, "db", "backup", file])).stderr).toMatch(/exists/);

    const whileRunning = await postern(["--data-dir", dataA, "db", "restore", file]);
    expect(whileRunning.status).toBe(1);
    expect(whileRunning.stderr).toMatch(/a server \(pid \d+\) runs on/);
    await server.close();
    servers.pop();

    const dataB = join(root, "b");
    const restored = await postern(["--data-dir", dataB, "db", "restore", file]);
    expect(restored.stderr).toContain("restored");
    expect(restored.status).toBe(0);
    expect(readFileSync(join(dataB, "agent-signing.key"), "utf8")).toBe(
      readFileSync(join(dataA, "agent-signing.key"), "utf8"),
    );
    expect(readFileSync(join(dataB, "secret.key"))).toEqual(readFileSync(join(dataA, "secret.key")));
    const again = await start(dataB);
    expect(await signIn(again, "carol", "carol-password-1")).toBe(200);
    expect(await signIn(again, "carol", "wrong-password")).toBe(401);
  });

  it("refuses a damaged archive and changes nothing", async () => {
    const root = mkdtempSync(join(tmpdir(), "postern-backup-"));
    const data = join(root, "data");
    const server = await start(data, true);
    const file = join(root, "b.tar.gz");
    expect((await postern(["--data-dir", data, "db", "backup", file])).status).toBe(0);
    await server.close();
    servers.pop();
    const damaged = join(root, "damaged.tar.gz");
    const bytes = readFileSync(file);
    bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
    writeFileSync(damaged, bytes);
    const before = readFileSync(join(data, "postern.db"));
    const r = await postern(["--data-dir", data, "db", "restore", damaged]);
    expect(r.status).toBe(1);
    expect(readFileSync(join(data, "postern.db"))).toEqual(before);
    expect(existsSync(join(data, "before-restore"))).toBe(false);
    const notTar = join(root, "not.tar.gz");
    writeFileSync(notTar, "hello");
    const r2 = await postern(["--data-dir", data, "db", "restore", notTar]);
    expect(r2.stderr).toMatch(/not a Postern backup/);
  });
});
