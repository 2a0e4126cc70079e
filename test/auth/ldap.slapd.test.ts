/**
 * LDAP sign-in (issue #4 item 2) against a real OpenLDAP slapd started on loopback by the test
 * (test/support/slapd.ts), through the in-process API: users at POST /api/login, admins at POST
 * /api/admin/login, settings through POST /api/admin/settings/authentication. Covers right and wrong
 * passwords, empty passwords (no bind), DNs with RFC 4514 special characters, StartTLS with and
 * without the test CA, ldaps (verified, wrong host, LDAPSkipVerifyTLS), ldapi, an LDAP admin with and
 * without a DN, RFC 4515 escaping in a real search, and a directory that is down. slapd's stats log
 * shows every BIND and its security strength factor (ssf), so "no bind" and "bind only over TLS" are
 * asserted on the directory's side.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { Client } from "ldapts";
import { testTables } from "../../server/src/testing/database.ts";
import { apiRequest, createHarness, signInAdmin } from "../../server/src/testing/harness.ts";
import type { Harness } from "../../server/src/testing/harness.ts";
import { escapeDnValue, escapeFilterValue } from "../../server/src/services/auth/ldap.ts";
import { SLAPD_ROOT_DN, SLAPD_ROOT_PASSWORD, SLAPD_SUFFIX, haveSlapd, startSlapd } from "../support/slapd.ts";
import type { SlapdInstance } from "../support/slapd.ts";

const { auditLog } = testTables;

const PEOPLE = `ou=people,${SLAPD_SUFFIX}`;
const BOB_DN = `uid=bob,${PEOPLE}`;
/** A multi-valued RDN whose cn holds a quote, a comma and a dot. */
const OBRIEN_DN = `cn=${escapeDnValue("O'Brien, Jr.")}+uid=ob,${PEOPLE}`;
const OBRIEN_PASSWORD = "pässwörd-ob";
/** A cn starting with # and holding quotes, a semicolon and angle brackets. */
const BOSS_CN = '#1 "Boss"; <x>';
const BOSS_DN = `cn=${escapeDnValue(BOSS_CN)},${PEOPLE}`;
const OPS_DN = `uid=ops,${PEOPLE}`;
const STAR_CN = "star (*) person";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const LDIF = [
  `dn: ${BOB_DN}`,
  "objectClass: inetOrgPerson",
  "uid: bob",
  "cn: Bob",
  "sn: Builder",
  "userPassword: bob-secret",
  "",
  `dn:: ${b64(OBRIEN_DN)}`,
  "objectClass: inetOrgPerson",
  "uid: ob",
  "cn: O'Brien, Jr.",
  "sn: O'Brien",
  `userPassword:: ${b64(OBRIEN_PASSWORD)}`,
  "",
  `dn:: ${b64(BOSS_DN)}`,
  "objectClass: inetOrgPerson",
  `cn:: ${b64(BOSS_CN)}`,
  "sn: Boss",
  "userPassword: boss-secret",
  "",
  `dn: ${OPS_DN}`,
  "objectClass: inetOrgPerson",
  "uid: ops",
  "cn: Ops",
  "sn: Ops",
  "userPassword: ops-secret",
  "",
  `dn: cn=${escapeDnValue(STAR_CN)},${PEOPLE}`,
  "objectClass: inetOrgPerson",
  `cn: ${STAR_CN}`,
  "sn: Star",
  "",
].join("\n");

const available = await haveSlapd();

describe.skipIf(!available)("LDAP sign-in on a real slapd", () => {
  let slapd: SlapdInstance;
  let h: Harness;
  let admin = "";

  beforeAll(async () => {
    slapd = await startSlapd({ ldif: LDIF });
  });
  afterAll(async () => {
    await slapd.stop();
  });
  beforeEach(async () => {
    h = await createHarness();
    admin = await signInAdmin(h);
  });
  afterEach(async () => {
    await h.close();
  });

  const settings = async (body: Record<string, unknown>) => {
    const r = await apiRequest(h, "POST", "/api/admin/settings/authentication", body, { cookie: admin });
    expect(r.status).toBe(200);
    return r.body as Record<string, unknown>;
  };
  const createUser = async (userName: string, dn: string) => {
    const r = await apiRequest(
      h,
      "POST",
      "/api/admin/users",
      { Name: userName, UserName: userName, AuthType: "LDAP", ThirdPartyAuth: { DN: dn }, Duration: 60 },
      { cookie: admin },
    );
    expect(r.status).toBe(201);
  };
  const login = (userName: string, password: string) =>
    apiRequest(h, "POST", "/api/login", { UserName: userName, Password: password, KioskMode: false });
  const audit = async (action: string) =>
    await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
  /** The BIND lines slapd logged after `from` binds, as `dn ssf=N` (the connection's strength at the bind). */
  const bindsSince = (from: number) => {
    const lines = slapd
      .log()
      .split("\n")
      .filter((l) => / BIND dn="[^"\\]*(?:\\.[^"\\]*)*" mech=SIMPLE/.test(l));
    return lines
      .slice(from)
      .map((l) => `${/dn="(.*)" mech/.exec(l)?.[1] ?? ""} ssf=${/ ssf=(\d+)/.exec(l)?.[1] ?? "?"}`);
  };
  const simpleBinds = () =>
    slapd
      .log()
      .split("\n")
      .filter((l) => / BIND dn=".*" mech=SIMPLE/.test(l)).length;

  it("signs an LDAP user in with the right password (plain ldap://) and refuses a wrong one with 401 and an audit entry", async () => {
    await settings({ LDAPURL: slapd.ldapUrl });
    await createUser("bob", BOB_DN);
    const before = slapd.bindCount();
    const ok = await login("bob", "bob-secret");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ Ends: expect.any(String) });
    expect(ok.setCookie).toMatch(/postern_session=.+HttpOnly/i);
    const cookie = ok.setCookie.split(";")[0] ?? "";
    expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie })).status).toBe(200);
    expect(await audit("userLoggedIn")).toEqual([expect.objectContaining({ userName: "bob" })]);

    const bad = await login("bob", "not-bobs-password");
    expect(bad).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    expect(bad.setCookie).toBe("");
    expect(await audit("userLoginFailed")).toEqual([
      expect.objectContaining({ userName: "bob", ipAddress: "203.0.113.5" }),
    ]);
    expect(await audit("ldapUnavailable")).toEqual([]);
    expect(await audit("ldapSignInRefused")).toEqual([]);
    expect(slapd.bindCount() - before).toBe(2);
  });

  it("refuses an empty password without any bind", async () => {
    await settings({ LDAPURL: slapd.ldapUrl });
    await createUser("bob", BOB_DN);
    const before = slapd.bindCount();
    // The API refuses it as a bad body; the service refuses it as invalid credentials.
    expect(await login("bob", "")).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    await expect(
      h.services.userSessions.login({ userName: "bob", password: "", kiosk: false, ip: "203.0.113.5" }),
    ).rejects.toMatchObject({ status: 401, err: "Invalid credentials" });
    await new Promise((r) => setTimeout(r, 100));
    expect(slapd.bindCount()).toBe(before);
  });

  it("binds with DNs holding RFC 4514 special characters and a UTF-8 password", async () => {
    await settings({ LDAPURL: slapd.ldapUrl });
    await createUser("obrien", OBRIEN_DN);
    await createUser("boss", BOSS_DN);
    expect(OBRIEN_DN).toBe(`cn=O'Brien\\, Jr.+uid=ob,${PEOPLE}`);
    expect(BOSS_DN).toBe(`cn=\\#1 \\"Boss\\"\\; \\<x\\>,${PEOPLE}`);
    expect((await login("obrien", OBRIEN_PASSWORD)).status).toBe(200);
    expect((await login("boss", "boss-secret")).status).toBe(200);
    expect(await login("obrien", "pässwörd-OB")).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
  });

  it("binds only after StartTLS when LDAPStartTLS is on: works with the test CA, fails closed without it", async () => {
    await settings({ LDAPURL: slapd.ldapUrl, LDAPStartTLS: true });
    await createUser("bob", BOB_DN);
    const from = simpleBinds();
    const refused = await login("bob", "bob-secret");
    expect(refused).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    expect(await audit("ldapUnavailable")).toEqual([
      expect.objectContaining({
        description: `user sign-in as ${BOB_DN}`,
        errorMessage: expect.stringMatching(
          /^LDAP directory unavailable: ldap:\/\/127\.0\.0\.1:\d+: StartTLS: .*certificate/,
        ),
      }),
    ]);
    expect(JSON.stringify(await audit("ldapUnavailable"))).not.toContain("bob-secret");
    expect(bindsSince(from)).toEqual([]);

    expect(await settings({ LDAPCACertificate: slapd.caPem })).toMatchObject({
      LDAPCACertificateSet: true,
      LDAPStartTLS: true,
    });
    expect((await login("bob", "bob-secret")).status).toBe(200);
    const binds = bindsSince(from);
    expect(binds).toHaveLength(1);
    expect(binds[0]).toMatch(new RegExp(`^${BOB_DN} ssf=([1-9]\\d*)$`));
  });

  it("verifies ldaps:// certificates: the CA and the host name, unless LDAPSkipVerifyTLS", async () => {
    await createUser("bob", BOB_DN);
    await settings({ LDAPURL: slapd.ldapsUrl });
    expect((await login("bob", "bob-secret")).status).toBe(401);
    await settings({ LDAPCACertificate: slapd.caPem });
    expect((await login("bob", "bob-secret")).status).toBe(200);
    // Same certificate (127.0.0.1, localhost) served on 127.0.0.2: trusted CA, wrong name.
    await settings({ LDAPURL: slapd.ldapsWrongHostUrl });
    expect((await login("bob", "bob-secret")).status).toBe(401);
    const errors = (await audit("ldapUnavailable")).map((e) => e.errorMessage);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/certificate/i);
    expect(errors[1]).toMatch(/127\.0\.0\.2/);
    // Skipping verification lets the untrusted certificate through, with and without the CA.
    await settings({ LDAPSkipVerifyTLS: true });
    expect((await login("bob", "bob-secret")).status).toBe(200);
    await settings({ LDAPURL: slapd.ldapsUrl, LDAPCACertificate: "" });
    expect((await login("bob", "bob-secret")).status).toBe(200);
    expect(await settings({ LDAPURL: slapd.ldapUrl, LDAPStartTLS: true })).toMatchObject({
      LDAPSkipVerifyTLS: true,
      LDAPCACertificateSet: false,
    });
    expect((await login("bob", "bob-secret")).status).toBe(200);
    expect(await audit("ldapUnavailable")).toHaveLength(2);
  });

  it("binds over ldapi:// (a Unix socket)", async () => {
    await settings({ LDAPURL: slapd.ldapiUrl });
    await createUser("bob", BOB_DN);
    expect((await login("bob", "bob-secret")).status).toBe(200);
    expect((await login("bob", "wrong-secret")).status).toBe(401);
  });

  it("signs an LDAP admin in at /api/admin/login, and refuses one without a DN with an audit entry", async () => {
    await settings({ LDAPURL: slapd.ldapUrl });
    const created = await apiRequest(
      h,
      "POST",
      "/api/admin/admins",
      { Name: "Ops", UserName: "ops", AuthType: "LDAP", ThirdPartyAuth: { DN: OPS_DN } },
      { cookie: admin },
    );
    expect(created.status).toBe(201);
    const ok = await apiRequest(h, "POST", "/api/admin/login", { UserName: "ops", Password: "ops-secret" });
    expect(ok.status).toBe(204);
    expect(ok.setCookie).toMatch(/postern_admin_session=.+HttpOnly/i);
    expect(
      (
        await apiRequest(h, "GET", "/api/admin/settings/authentication", undefined, {
          cookie: ok.setCookie.split(";")[0] ?? "",
        })
      ).status,
    ).toBe(200);
    expect(await apiRequest(h, "POST", "/api/admin/login", { UserName: "ops", Password: "bob-secret" })).toMatchObject({
      status: 401,
      body: { Err: "Invalid credentials" },
    });

    const noDn = await apiRequest(
      h,
      "POST",
      "/api/admin/admins",
      { Name: "NoDN", UserName: "nodn", AuthType: "LDAP" },
      { cookie: admin },
    );
    expect(noDn.status).toBe(201);
    const before = slapd.bindCount();
    expect(await apiRequest(h, "POST", "/api/admin/login", { UserName: "nodn", Password: "ops-secret" })).toMatchObject(
      { status: 401, body: { Err: "Invalid credentials" } },
    );
    expect(await audit("ldapSignInRefused")).toEqual([
      expect.objectContaining({
        description: "admin sign-in without a DN",
        errorMessage: "LDAP sign-in refused: the account has no DN",
      }),
    ]);
    expect((await audit("adminLoginFailed")).map((e) => e.adminName)).toEqual(["ops", "nodn"]);
    expect(slapd.bindCount()).toBe(before);
  });

  it("checks LDAPCACertificate: a PEM certificate, reported as set, removable", async () => {
    expect(
      await apiRequest(
        h,
        "POST",
        "/api/admin/settings/authentication",
        { LDAPCACertificate: "not a certificate" },
        { cookie: admin },
      ),
    ).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "LDAPCACertificate: not a PEM X.509 certificate" },
    });
    expect(
      await apiRequest(h, "POST", "/api/admin/settings/authentication", { LDAPCACertificate: 5 }, { cookie: admin }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(await settings({ LDAPCACertificate: slapd.caPem })).toMatchObject({ LDAPCACertificateSet: true });
    const read = (await apiRequest(h, "GET", "/api/admin/settings/authentication", undefined, { cookie: admin }))
      .body as Record<string, unknown>;
    expect(read).toMatchObject({ LDAPCACertificateSet: true });
    expect(JSON.stringify(read)).not.toContain("BEGIN CERTIFICATE");
    expect(await settings({ LDAPCACertificate: "" })).toMatchObject({ LDAPCACertificateSet: false });
  });

  it("escapeFilterValue keeps values literal in a real search (RFC 4515)", async () => {
    const client = new Client({ url: slapd.ldapUrl, timeout: 5_000, connectTimeout: 5_000 });
    try {
      await client.bind(SLAPD_ROOT_DN, SLAPD_ROOT_PASSWORD);
      const search = async (filter: string) =>
        (await client.search(PEOPLE, { scope: "one", filter, attributes: ["cn"] })).searchEntries.length;
      expect(await search(`(cn=${escapeFilterValue(STAR_CN)})`)).toBe(1);
      expect(await search(`(cn=${escapeFilterValue("*")})`)).toBe(0);
      expect(await search("(cn=*)")).toBe(5);
      expect(await search(`(cn=${escapeFilterValue(BOSS_CN)})`)).toBe(1);
      expect(await search(`(&(uid=${escapeFilterValue("bob)(uid=*")}))`)).toBe(0);
    } finally {
      await client.unbind();
    }
  });

  it("fails closed when the directory is down, and an empty password is refused the same way without contacting it", async () => {
    const down = await startSlapd({ ldif: LDIF });
    try {
      await settings({ LDAPURL: down.ldapUrl });
      await createUser("bob", BOB_DN);
      expect((await login("bob", "bob-secret")).status).toBe(200);
      await down.stop();
      const r = await login("bob", "bob-secret");
      expect(r).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
      expect(await audit("ldapUnavailable")).toEqual([
        expect.objectContaining({ errorMessage: expect.stringContaining("ECONNREFUSED") }),
      ]);
      await expect(
        h.services.userSessions.login({ userName: "bob", password: "", kiosk: false, ip: "203.0.113.5" }),
      ).rejects.toMatchObject({ status: 401, err: "Invalid credentials" });
      // No second ldapUnavailable: the empty password never reached for the network.
      expect(await audit("ldapUnavailable")).toHaveLength(1);
      expect(await audit("userLoginFailed")).toHaveLength(2);
    } finally {
      await down.stop();
    }
  });
});
