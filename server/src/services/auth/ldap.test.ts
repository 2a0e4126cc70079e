/**
 * LDAP sign-in pieces that need no directory: RFC 4515/4514 escaping, LDAPURL parsing, the refusals
 * made before any traffic (empty password, no DN, no or cldap URL), and the bounded failure on a
 * directory that is closed or never answers. The binds themselves are tested on a real slapd in
 * test/auth/ldap.slapd.test.ts.
 */
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { setSetting } from "../settings.ts";
import {
  createLdapVerifier,
  escapeDnValue,
  escapeFilterValue,
  ldapBind,
  parseLdapUrl,
  DEFAULT_LDAPI_SOCKET,
  LdapUrlError,
} from "./ldap.ts";
import type { LdapConfig } from "./ldap.ts";

const { auditLog } = testTables;

/** A TCP server on 127.0.0.1 that accepts and counts connections and never answers. */
async function silentServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  let count = 0;
  const srv: Server = createServer((s) => {
    count++;
    sockets.push(s);
    s.on("error", () => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const config = (url: string, more: Partial<LdapConfig> = {}): LdapConfig => ({
  url,
  startTls: false,
  skipVerifyTls: false,
  caPem: "",
  ...more,
});

describe("escapeFilterValue (RFC 4515 §3)", () => {
  it("escapes the five special characters and nothing else", () => {
    expect(escapeFilterValue("Parens R Us (for all your parenthetical needs)")).toBe(
      "Parens R Us \\28for all your parenthetical needs\\29",
    );
    expect(escapeFilterValue("*")).toBe("\\2a");
    expect(escapeFilterValue("C:\\MyFile")).toBe("C:\\5cMyFile");
    expect(escapeFilterValue("\0\0\0\u0004")).toBe("\\00\\00\\00\u0004");
    expect(escapeFilterValue("Lučić")).toBe("Lučić");
    expect(escapeFilterValue("*)(uid=*))(|(uid=*")).toBe("\\2a\\29\\28uid=\\2a\\29\\29\\28|\\28uid=\\2a");
    expect(escapeFilterValue("")).toBe("");
    expect(escapeFilterValue("plain value, with = & | ! ~ <>")).toBe("plain value, with = & | ! ~ <>");
  });
});

describe("escapeDnValue (RFC 4514 §2.4)", () => {
  it("escapes the special characters, a leading # or space and a trailing space", () => {
    expect(escapeDnValue('James "Jim" Smith, III')).toBe('James \\"Jim\\" Smith\\, III');
    expect(escapeDnValue("O'Brien, Jr.")).toBe("O'Brien\\, Jr.");
    expect(escapeDnValue("a+b;c<d>e=f\\g")).toBe("a\\+b\\;c\\<d\\>e\\=f\\\\g");
    expect(escapeDnValue("#1 boss")).toBe("\\#1 boss");
    expect(escapeDnValue("no # inside")).toBe("no # inside");
    expect(escapeDnValue(" padded ")).toBe("\\ padded\\ ");
    expect(escapeDnValue(" ")).toBe("\\ ");
    expect(escapeDnValue("  ")).toBe("\\ \\ ");
    expect(escapeDnValue("a\0b")).toBe("a\\00b");
    expect(escapeDnValue("Jürgen")).toBe("Jürgen");
    expect(escapeDnValue("")).toBe("");
  });
});

describe("parseLdapUrl", () => {
  it("reads ldap, ldaps (default ports, IPv6) and ldapi (socket path)", () => {
    expect(parseLdapUrl("ldap://dir.example")).toEqual({
      transport: "tcp",
      host: "dir.example",
      port: 389,
      tls: false,
    });
    expect(parseLdapUrl("ldaps://dir.example/dc=example,dc=org")).toEqual({
      transport: "tcp",
      host: "dir.example",
      port: 636,
      tls: true,
    });
    expect(parseLdapUrl("LDAP://[::1]:1389")).toEqual({ transport: "tcp", host: "::1", port: 1389, tls: false });
    expect(parseLdapUrl("ldapi://%2Frun%2Fslapd%2Fldapi")).toEqual({ transport: "ipc", path: "/run/slapd/ldapi" });
    expect(parseLdapUrl("ldapi:///")).toEqual({ transport: "ipc", path: DEFAULT_LDAPI_SOCKET });
  });

  it("refuses cldap, other schemes, relative sockets and missing hosts", () => {
    expect(() => parseLdapUrl("cldap://dir.example")).toThrow(
      /cldap \(connectionless LDAP over UDP\) is not supported/,
    );
    expect(() => parseLdapUrl("cldap://dir.example")).toThrow(LdapUrlError);
    expect(() => parseLdapUrl("http://dir.example")).toThrow(/scheme http is not supported/);
    expect(() => parseLdapUrl("ldapi://run%2Fldapi")).toThrow(/absolute socket path/);
    expect(() => parseLdapUrl("ldap://")).toThrow(/no host/);
    expect(() => parseLdapUrl("not a url")).toThrow(/not a valid URL/);
  });
});

describe("ldapBind without a directory", () => {
  const servers: { close: () => Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it("refuses an empty password and a missing DN or URL before any connection", async () => {
    const srv = await silentServer();
    servers.push(srv);
    const url = `ldap://127.0.0.1:${srv.port}`;
    expect(await ldapBind(config(url), "uid=a,dc=example,dc=org", "")).toEqual({
      ok: false,
      kind: "invalidCredentials",
    });
    expect(await ldapBind(config(url), "", "secret")).toEqual({
      ok: false,
      kind: "refused",
      detail: "the account has no DN",
    });
    expect(await ldapBind(config(url), "  ", "secret")).toEqual({
      ok: false,
      kind: "refused",
      detail: "the account has no DN",
    });
    expect(await ldapBind(config(""), "uid=a,dc=example,dc=org", "secret")).toEqual({
      ok: false,
      kind: "refused",
      detail: "LDAPURL is not set",
    });
    expect(await ldapBind(config(`cldap://127.0.0.1:${srv.port}`), "uid=a,dc=example,dc=org", "secret")).toMatchObject({
      ok: false,
      kind: "refused",
      detail: expect.stringContaining("cldap"),
    });
    expect(srv.connections()).toBe(0);
  });

  it("fails closed, within its bounds, on a closed port and on a directory that never answers", async () => {
    const port = await closedPort();
    expect(await ldapBind(config(`ldap://127.0.0.1:${port}`), "uid=a,dc=example,dc=org", "secret")).toMatchObject({
      ok: false,
      kind: "unavailable",
      detail: expect.stringMatching(new RegExp(`^ldap://127\\.0\\.0\\.1:${port}: bind: .*ECONNREFUSED`)),
    });

    const srv = await silentServer();
    servers.push(srv);
    let started = Date.now();
    const plain = await ldapBind(config(`ldap://127.0.0.1:${srv.port}`), "uid=a,dc=example,dc=org", "secret", {
      operationMs: 300,
      totalMs: 5_000,
    });
    expect(plain).toMatchObject({ ok: false, kind: "unavailable", detail: expect.stringContaining("timed out") });
    expect(Date.now() - started).toBeLessThan(3_000);

    // StartTLS whose answer never comes, and a TLS handshake (ldaps) that never completes: the
    // whole check is bounded even where ldapts has no timer of its own.
    started = Date.now();
    const tls = await ldapBind(config(`ldaps://127.0.0.1:${srv.port}`), "uid=a,dc=example,dc=org", "secret", {
      connectMs: 5_000,
      totalMs: 400,
    });
    expect(tls).toMatchObject({
      ok: false,
      kind: "unavailable",
      detail: expect.stringContaining("no answer within 400 ms"),
    });
    const startTls = await ldapBind(
      config(`ldap://127.0.0.1:${srv.port}`, { startTls: true }),
      "uid=a,dc=example,dc=org",
      "secret",
      { operationMs: 5_000, totalMs: 400 },
    );
    expect(startTls).toMatchObject({
      ok: false,
      kind: "unavailable",
      detail: expect.stringContaining("StartTLS: no answer within 400 ms"),
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(srv.connections()).toBe(3);
  });
});

describe("createLdapVerifier", () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });
  const entries = async () => await h.services.db.select().from(auditLog).where(eq(auditLog.action, "ldapUnavailable"));
  const refusals = async () =>
    await h.services.db.select().from(auditLog).where(eq(auditLog.action, "ldapSignInRefused"));

  it("resolves false and writes ldapUnavailable with the reason when the directory is down", async () => {
    h = await createHarness();
    const port = await closedPort();
    await setSetting(h.services.db, "LDAPURL", `ldap://127.0.0.1:${port}`);
    const verify = createLdapVerifier(h.services, "admin");
    await expect(verify("cn=x,dc=example,dc=org", "secret")).resolves.toBe(false);
    expect(await entries()).toEqual([
      expect.objectContaining({
        description: "admin sign-in as cn=x,dc=example,dc=org",
        errorMessage: expect.stringMatching(
          /^LDAP directory unavailable: ldap:\/\/127\.0\.0\.1:\d+: bind: .*ECONNREFUSED/,
        ),
      }),
    ]);
    expect(JSON.stringify(await entries())).not.toContain("secret");
  });

  it("writes ldapSignInRefused for a missing DN, no LDAPURL and cldap, and nothing for an empty password", async () => {
    h = await createHarness();
    const verify = createLdapVerifier(h.services, "user");
    await expect(verify("cn=x,dc=example,dc=org", "secret")).resolves.toBe(false);
    await setSetting(h.services.db, "LDAPURL", "cldap://127.0.0.1");
    await expect(verify("cn=x,dc=example,dc=org", "secret")).resolves.toBe(false);
    await expect(verify("", "secret")).resolves.toBe(false);
    await expect(verify("cn=x,dc=example,dc=org", "")).resolves.toBe(false);
    expect((await refusals()).map((r) => r.errorMessage)).toEqual([
      "LDAP sign-in refused: LDAPURL is not set",
      "LDAP sign-in refused: cldap (connectionless LDAP over UDP) is not supported: use ldap, ldaps or ldapi",
      "LDAP sign-in refused: the account has no DN",
    ]);
    expect(await entries()).toEqual([]);
  });
});
