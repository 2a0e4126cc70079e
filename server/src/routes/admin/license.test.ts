import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { issueTestLicence, testLicenceKey, testPayload, trustTestKey } from "../../testing/licences.ts";
import { startServer } from "../../server.ts";
import { signLicense } from "../../services/licensing/keys.ts";
import { testTables } from "../../testing/database.ts";

const { auditLog, licenses } = testTables;

const URL = "/api/admin/settings/license";
let h: Harness;
let admin = "";

beforeEach(async () => {
  h = await createHarness();
  await seedLoop(h, { licence: false });
  trustTestKey(h);
  admin = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

const post = (body: unknown, cookie = admin) => apiRequest(h, "POST", URL, body, { cookie });
const get = (cookie = admin) => apiRequest(h, "GET", URL, undefined, { cookie });

describe("GET /api/admin/settings/license", () => {
  it("answers the unlicensed status before any licence is installed", async () => {
    expect(await get()).toMatchObject({
      status: 200,
      body: {
        Licensed: false,
        ID: "",
        UserLimit: 0,
        SessionLimit: 0,
        MaxMachines: 0,
        MachineCount: 1,
        Expires: null,
        State: "unlicensed",
      },
    });
  });

  it("is for admins only", async () => {
    expect(await get("")).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    const login = await apiRequest(h, "POST", "/api/login", {
      UserName: "alice",
      Password: "alice-password",
      KioskMode: false,
    });
    const user = login.setCookie.split(";")[0] ?? "";
    expect(await get(user)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await post({ License: "free" }, user)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await h.services.db.select().from(licenses)).toHaveLength(0);
  });

  it("answers 500 err.failedToRefreshLicenseStatus when the stored licences are not exactly one", async () => {
    await h.services.db.insert(licenses).values([
      { id: "a", key: "free", payload: {} },
      { id: "b", key: "free", payload: {} },
    ]);
    expect(await get()).toMatchObject({
      status: 500,
      body: { Err: "err.failedToRefreshLicenseStatus", Extra: "2 licences are installed; expected exactly one" },
    });
  });
});

describe("POST /api/admin/settings/license", () => {
  it("installs a signed licence, answers and then reads the new status, and audits it", async () => {
    const expires = new Date(h.clock.now() + 30 * 86_400_000).toISOString();
    const r = await post({
      License: issueTestLicence({ ID: "acme", UserLimit: 25, SessionLimit: 4, MaxMachines: 2, Expires: expires }),
    });
    const status = {
      Licensed: true,
      ID: "acme",
      UserLimit: 25,
      SessionLimit: 4,
      MaxMachines: 2,
      MachineCount: 1,
      Expires: expires,
      State: "expiringSoon",
    };
    expect(r).toMatchObject({ status: 200, body: status });
    expect(await get()).toMatchObject({ status: 200, body: status });
    const audit = await h.services.db.select().from(auditLog).where(eq(auditLog.action, "licenseInstalled"));
    expect(audit).toEqual([
      expect.objectContaining({
        adminName: "root",
        ipAddress: "203.0.113.5",
        description: expect.stringContaining("licence acme: 25 users"),
      }),
    ]);
  });

  it("installs the free single-user licence from the literal key, replacing the installed one", async () => {
    await post({ License: issueTestLicence({ ID: "paid" }) });
    expect(await post({ License: " free " })).toMatchObject({
      status: 200,
      body: {
        Licensed: true,
        ID: "free",
        UserLimit: 1,
        SessionLimit: 1,
        MaxMachines: 1,
        Expires: null,
        State: "active",
      },
    });
    expect(await h.services.db.select().from(licenses)).toHaveLength(1);
  });

  it("refuses a tampered licence and one signed by an untrusted key with err.invalidLicenseSignature", async () => {
    const [, sig] = issueTestLicence().split(".");
    const forged = `${Buffer.from(JSON.stringify(testPayload({ UserLimit: 9999 }))).toString("base64url")}.${sig}`;
    expect(await post({ License: forged })).toMatchObject({
      status: 400,
      body: {
        Err: "err.invalidLicenseSignature",
        Extra: "the signature does not match any trusted licence public key",
      },
    });
    const stranger = signLicense(testPayload(), generateKeyPairSync("ed25519").privateKey);
    expect(await post({ License: stranger })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidLicenseSignature" },
    });
    expect(await h.services.db.select().from(licenses)).toHaveLength(0);
  });

  it("refuses unparsable keys with err.invalidLicenseKey", async () => {
    expect(await post({ License: "not-a-licence" })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidLicenseKey", Extra: "expected payload.signature" },
    });
    expect(await post({ License: "YWJj.YWJj" })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidLicenseKey", Extra: "the signature must be 64 bytes" },
    });
    expect(await post({ License: "" })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidLicenseKey", Extra: "License" },
    });
    expect(await post({ License: "x".repeat(5000) })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidLicenseKey", Extra: "License" },
    });
  });

  it("refuses an expired licence with err.licenseExpired", async () => {
    const expires = new Date(h.clock.now() - 86_400_000).toISOString();
    expect(await post({ License: issueTestLicence({ Expires: expires }) })).toMatchObject({
      status: 400,
      body: { Err: "err.licenseExpired", Extra: expires },
    });
  });

  it("refuses a body without License, and one that is not JSON", async () => {
    expect(await post({})).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^License: /) },
    });
    expect(await post({ License: 42 })).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(await post("{nope")).toMatchObject({ status: 400, body: { Err: "Failed decoding request body" } });
  });

  it("refuses signed licences when the server trusts no public key", async () => {
    const untrusting = await createHarness();
    try {
      await seedLoop(untrusting);
      const cookie = await signInAdmin(untrusting);
      const r = await apiRequest(untrusting, "POST", URL, { License: issueTestLicence() }, { cookie });
      expect(r).toMatchObject({
        status: 400,
        body: {
          Err: "err.invalidLicenseSignature",
          Extra: "no trusted licence public keys are configured (POSTERN_LICENSE_PUBLIC_KEYS)",
        },
      });
      expect(await apiRequest(untrusting, "POST", URL, { License: "free" }, { cookie })).toMatchObject({
        status: 200,
        body: { ID: "free" },
      });
    } finally {
      await untrusting.close();
    }
  });
});

describe("a started server", () => {
  it("trusts the licensePublicKeys it is started with", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "postern-licence-"));
    const server = await startServer({
      dataDir,
      listen: "127.0.0.1:0",
      migrate: true,
      logLevel: "silent",
      webDir: "/nonexistent",
      licensePublicKeys: [testLicenceKey.publicKey],
    });
    try {
      await server.services.adminSessions.createLocalAdmin({
        userName: "root",
        name: "Root",
        password: "root-password",
      });
      const headers = { "content-type": "application/json" };
      const login = await fetch(`${server.url}/api/admin/login`, {
        method: "POST",
        headers,
        body: JSON.stringify({ UserName: "root", Password: "root-password" }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(login.status).toBe(204);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const r = await fetch(`${server.url}${URL}`, {
        method: "POST",
        headers: { ...headers, cookie },
        body: JSON.stringify({ License: issueTestLicence({ ID: "served" }) }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ Licensed: true, ID: "served", State: "active" });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
