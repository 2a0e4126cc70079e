import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LicenseStatusSchema } from "@postern/shared";
import { parseExpires } from "./license.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** Each CLI start takes about a second here (type stripping of the server); a test spawns up to 12. */
const SLOW = 180_000;
let dir = "";

/** Runs the real CLI entry with the temp data dir; bounded by a 30 s timeout. */
function postern(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, POSTERN_DATA_DIR: join(dir, "data"), POSTERN_LICENSE_PUBLIC_KEYS: "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-license-"));
  expect(postern(["db", "migrate"]).code).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("postern license", () => {
  it(
    "keygen → issue → install → show through the real CLI",
    () => {
      const keys = join(dir, "keys");
      const keygen = postern(["license", "keygen", "--out", keys]);
      expect(keygen.code).toBe(0);
      const publicKey = keygen.stdout.trim();
      expect(Buffer.from(publicKey, "base64")).toHaveLength(32);
      expect(keygen.stderr).toContain("license-signing-key.pem");
      const pem = join(keys, "license-signing-key.pem");
      expect(statSync(pem).mode & 0o777).toBe(0o600);
      // A second keygen never overwrites the key.
      const again = postern(["license", "keygen", "--out", keys]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("refusing to overwrite");

      const issue = postern([
        "license",
        "issue",
        "--key",
        pem,
        "--id",
        "acme-2030",
        "--users",
        "10",
        "--overage",
        "30",
        "--sessions",
        "3",
        "--machines",
        "2",
        "--expires",
        "2030-06-30",
      ]);
      expect(issue.code).toBe(0);
      const key = issue.stdout.trim();
      expect(key).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

      expect(postern(["license", "show", "--json"]).stdout).toContain('"State": "unlicensed"');
      const untrusted = postern(["license", "install", key]);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toContain("err.invalidLicenseSignature");

      const install = postern(["license", "install", key], { POSTERN_LICENSE_PUBLIC_KEYS: publicKey });
      expect(install.code).toBe(0);
      expect(install.stderr).toContain("licence acme-2030 installed");
      expect(install.stdout).toContain("State: active");

      const show = postern(["license", "show", "--json"]);
      expect(show.code).toBe(0);
      expect(LicenseStatusSchema.parse(JSON.parse(show.stdout))).toEqual({
        Licensed: true,
        ID: "acme-2030",
        UserLimit: 10,
        SessionLimit: 3,
        MaxMachines: 2,
        MachineCount: 0,
        Expires: "2030-06-30T23:59:59.000Z",
        State: "active",
      });
      expect(postern(["--json", "license", "show"]).stdout).toBe(show.stdout);

      const [body, sig] = key.split(".");
      const more = { ...(JSON.parse(Buffer.from(body!, "base64url").toString("utf8")) as object), UserLimit: 1000 };
      const tampered = postern(
        ["license", "install", `${Buffer.from(JSON.stringify(more)).toString("base64url")}.${sig}`],
        { POSTERN_LICENSE_PUBLIC_KEYS: publicKey },
      );
      expect(tampered.code).toBe(1);
      expect(tampered.stderr).toContain("err.invalidLicenseSignature");
      expect(JSON.parse(postern(["license", "show", "--json"]).stdout)).toMatchObject({
        ID: "acme-2030",
        UserLimit: 10,
      });

      const free = postern(["license", "install", "free"]);
      expect(free.code).toBe(0);
      const text = postern(["license", "show"]);
      expect(text.stdout).toContain("ID: free");
      expect(text.stdout).toContain("Expires: never");
    },
    SLOW,
  );

  it(
    "refuses bad issue options with a message and exit code 1",
    () => {
      const keys = join(dir, "keys2");
      expect(postern(["license", "keygen", "--out", keys]).code).toBe(0);
      const pem = join(keys, "license-signing-key.pem");
      const base = [
        "license",
        "issue",
        "--key",
        pem,
        "--id",
        "x",
        "--overage",
        "0",
        "--sessions",
        "1",
        "--machines",
        "1",
      ];
      const bad = postern([...base, "--users", "ten"]);
      expect(bad).toMatchObject({ code: 1, stdout: "" });
      expect(bad.stderr).toContain('--users must be a whole number, got "ten"');
      const zero = postern([...base, "--users", "0"]);
      expect(zero.code).toBe(1);
      expect(zero.stderr).toContain("err.invalidLicenseKey: UserLimit");
      expect(postern([...base, "--users", "1", "--expires", "2030-02-30"]).stderr).toContain(
        'no such date "2030-02-30"',
      );
      expect(postern(["license", "issue", "--id", "x"]).code).not.toBe(0);
    },
    SLOW,
  );

  it(
    "has --help for every command",
    () => {
      for (const cmd of [[], ["keygen"], ["issue"], ["install"], ["show"]]) {
        const r = postern(["license", ...cmd, "--help"]);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain("Usage: postern license");
      }
    },
    SLOW,
  );

  it("reads --expires as the end of that UTC day, or an ISO time", () => {
    expect(parseExpires("2030-06-30")).toBe("2030-06-30T23:59:59.000Z");
    expect(parseExpires("2030-06-30T10:00:00+02:00")).toBe("2030-06-30T08:00:00.000Z");
    expect(() => parseExpires("30/06/2030")).toThrow("--expires must be YYYY-MM-DD or an ISO 8601 time");
    expect(() => parseExpires("2030-13-01")).toThrow("no such date");
  });
});
