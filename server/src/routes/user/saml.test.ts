import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { desc, eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, socketEnv } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import {
  FakeIdp,
  b64,
  makeKeyPair,
  requestIdOf,
  responseXml,
  signAssertion,
  signResponse,
} from "../../testing/saml.ts";
import type { KeyPair, ResponseFields } from "../../testing/saml.ts";
import { installTestLicence } from "../../testing/licences.ts";
import { setSetting } from "../../services/settings.ts";
import { SAML_START_LIMIT } from "../../services/auth/throttle.ts";
import { MAX_PENDING_SAML_REQUESTS } from "../../services/saml/service.ts";

const { auditLog, samlAssertions, samlRequests, userSessions, users } = testTables;

const actor = { adminName: "test-admin", ip: "127.0.0.1" };
const SP = { acsUrl: "http://postern.test/api/saml/acs", audience: "http://postern.test/api/saml/metadata" };
const FAILED = "/?error=Authentication%20failed";

let idp: FakeIdp;
let otherKeys: KeyPair;
let h: Harness;
let seed: Seeded;

beforeAll(async () => {
  idp = new FakeIdp(await makeKeyPair("idp.example.test"));
  otherKeys = await makeKeyPair("attacker");
});
beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  await setSetting(h.services.db, "PublicURL", "http://postern.test");
  await setSetting(h.services.db, "SAMLMetadataFile", idp.metadata());
});
afterEach(async () => {
  await h.close();
});

interface AcsResult {
  status: number;
  location: string;
  setCookie: string;
}

/** Posts a form to the user ACS the way a browser does after the IdP (a cross-site form post). */
async function acs(
  samlResponse: string | null,
  opts: { base?: string; cookie?: string; contentType?: string; body?: string } = {},
): Promise<AcsResult> {
  const res = await h.app.request(
    `${opts.base ?? "http://postern.test"}/api/saml/acs`,
    {
      method: "POST",
      headers: {
        host: "postern.test",
        "content-type": opts.contentType ?? "application/x-www-form-urlencoded",
        origin: "https://idp.example.test",
        "sec-fetch-site": "cross-site",
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
      },
      body: opts.body ?? new URLSearchParams(samlResponse === null ? {} : { SAMLResponse: samlResponse }).toString(),
    },
    socketEnv(),
  );
  return {
    status: res.status,
    location: res.headers.get("location") ?? "",
    setCookie: res.headers.get("set-cookie") ?? "",
  };
}

/** Starts a sign-in; returns the AuthnRequest id sent to the IdP. */
async function start(query = "?kioskMode=false"): Promise<string> {
  const r = await apiRequest(h, "GET", `/api/login/saml${query}`);
  expect(r.status).toBe(302);
  return requestIdOf(r.headers.get("location") ?? "");
}

/** Valid fields for a fresh request of alice@example.test (attributes as given). */
async function fresh(
  nameId = "alice@example.test",
  attributes: Record<string, string[]> = {},
): Promise<ResponseFields> {
  return { ...idp.fields(await start(), SP, nameId), attributes };
}

const sessionCookie = (setCookie: string) => /postern_session=[^;]+/.exec(setCookie)?.[0] ?? "";
const sessionCount = async () => (await h.services.db.select().from(userSessions)).length;
const lastAudit = async () => (await h.services.db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0];
const userRow = async (userName: string) =>
  (await h.services.db.select().from(users).where(eq(users.userName, userName)).limit(1))[0];

/** Posts `samlResponse` and expects a refusal: redirect with the key, no session, an audit entry naming `reason`. */
async function expectRefused(
  samlResponse: string | null,
  reason: RegExp,
  key = FAILED,
  opts: Parameters<typeof acs>[1] = {},
): Promise<void> {
  const sessions = await sessionCount();
  const r = await acs(samlResponse, opts);
  expect(r.status).toBe(303);
  expect(r.location).toBe(key);
  expect(r.setCookie).not.toMatch(/postern_session=/);
  expect(await sessionCount()).toBe(sessions);
  const entry = await lastAudit();
  expect(entry).toMatchObject({ action: "userLoginFailed", description: "SAML sign-in", ipAddress: "203.0.113.5" });
  expect(entry?.errorMessage).toMatch(reason);
}

describe("GET /api/saml/metadata", () => {
  it("answers the SP metadata when configured", async () => {
    const r = await apiRequest(h, "GET", "/api/saml/metadata");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/samlmetadata\+xml/);
    const xml = String(r.body);
    expect(xml).toContain('entityID="http://postern.test/api/saml/metadata"');
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect(xml).toMatch(
      /AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="http:\/\/postern.test\/api\/saml\/acs"/,
    );
    expect(xml).not.toContain("KeyDescriptor");
  });

  it("carries the SP certificate once a key pair is generated", async () => {
    const cert = await h.services.adminSettings.generateSamlKeyCert("user", actor);
    const xml = String((await apiRequest(h, "GET", "/api/saml/metadata")).body);
    expect(xml).toContain('KeyDescriptor use="signing"');
    expect(xml).toContain(cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "").slice(0, 60));
  });

  it.each([
    ["no IdP metadata", async () => await setSetting(h.services.db, "SAMLMetadataFile", "")],
    ["no PublicURL", async () => await setSetting(h.services.db, "PublicURL", "")],
    [
      "IdP metadata without a signing certificate",
      async () => await setSetting(h.services.db, "SAMLMetadataFile", idp.metadata({ withCert: false })),
    ],
    ["unreadable IdP metadata", async () => await setSetting(h.services.db, "SAMLMetadataFile", "<EntityDescriptor")],
    [
      "an IdP wanting signed requests and no SP key",
      async () => await setSetting(h.services.db, "SAMLMetadataFile", idp.metadata({ wantAuthnRequestsSigned: true })),
    ],
  ])("answers 404 SAML not configured with %s", async (_name, change) => {
    await change();
    expect(await apiRequest(h, "GET", "/api/saml/metadata")).toMatchObject({
      status: 404,
      body: { Err: "SAML not configured" },
    });
    const login = await apiRequest(h, "GET", "/api/login/saml?kioskMode=false");
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toBe("/?error=SAML%20not%20configured");
  });

  it("is not configured for users by the admins' settings alone", async () => {
    await setSetting(h.services.db, "SAMLMetadataFile", "");
    await setSetting(h.services.db, "AdminSAMLMetadataFile", idp.metadata());
    expect((await apiRequest(h, "GET", "/api/saml/metadata")).status).toBe(404);
    expect((await apiRequest(h, "GET", "/api/admin/saml/metadata")).status).toBe(200);
  });
});

describe("IdP metadata from a URL", () => {
  let server: Server;
  let hits = 0;
  let url = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === "/metadata")
        res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(idp.metadata());
      else res.writeHead(500).end("no");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("fetches the metadata once and signs in with it", async () => {
    await setSetting(h.services.db, "SAMLMetadataFile", "");
    await setSetting(h.services.db, "SAMLMetadataURL", `${url}/metadata`);
    hits = 0;
    expect((await apiRequest(h, "GET", "/api/saml/metadata")).status).toBe(200);
    const f = await fresh();
    expect((await acs(idp.signed(f))).location).toBe("/home/new");
    expect(hits).toBe(1);
  });

  it("is not configured while the URL fails", async () => {
    await setSetting(h.services.db, "SAMLMetadataFile", "");
    await setSetting(h.services.db, "SAMLMetadataURL", `${url}/broken`);
    expect(await apiRequest(h, "GET", "/api/saml/metadata")).toMatchObject({
      status: 404,
      body: { Err: "SAML not configured" },
    });
  });
});

describe("GET /api/login/saml", () => {
  it("redirects to the IdP with a stored AuthnRequest for our ACS", async () => {
    const r = await apiRequest(h, "GET", "/api/login/saml?kioskMode=true");
    expect(r.status).toBe(302);
    const location = r.headers.get("location") ?? "";
    expect(location.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true);
    expect(new URL(location).searchParams.get("Signature")).toBeNull();
    const id = requestIdOf(location);
    const row = (await h.services.db.select().from(samlRequests).where(eq(samlRequests.id, id)).limit(1))[0];
    expect(row).toMatchObject({ audience: "user", kiosk: true });
    expect(row!.expiresAt - row!.createdAt).toBe(300_000);
    // Plain HTTP: no binding cookie (it could not be Secure).
    expect(r.setCookie).toBe("");
  });

  it("takes a missing kioskMode as false and refuses another value", async () => {
    const id = await start("");
    expect((await h.services.db.select().from(samlRequests).where(eq(samlRequests.id, id)).limit(1))[0]?.kiosk).toBe(
      false,
    );
    const bad = await apiRequest(h, "GET", "/api/login/saml?kioskMode=yes");
    expect(bad.status).toBe(302);
    expect(bad.headers.get("location")).toBe("/?error=Bad%20request");
  });

  it("signs the AuthnRequest when the IdP wants it and an SP key is set", async () => {
    await setSetting(h.services.db, "SAMLMetadataFile", idp.metadata({ wantAuthnRequestsSigned: true }));
    await h.services.adminSettings.generateSamlKeyCert("user", actor);
    const r = await apiRequest(h, "GET", "/api/login/saml");
    const params = new URL(r.headers.get("location") ?? "").searchParams;
    expect(params.get("Signature")).toBeTruthy();
    expect(params.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
  });
});

describe("POST /api/saml/acs: success", () => {
  it("creates the SAML user at the first sign-in, sets the session cookie and redirects to the dashboard", async () => {
    const f = await fresh("alice@example.test", { displayName: ["Alice Example"] });
    const r = await acs(idp.signed(f));
    expect(r).toMatchObject({ status: 303, location: "/home/new" });
    const cookie = sessionCookie(r.setCookie);
    expect(cookie).not.toBe("");
    expect(r.setCookie).toMatch(/HttpOnly/i);
    const status = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
    expect(status).toMatchObject({ status: 200, body: { Name: "Alice Example", AuthType: "SAML" } });
    const user = await userRow("alice@example.test");
    expect(user).toMatchObject({
      authType: "SAML",
      name: "Alice Example",
      durationMinutes: 480,
      totpEnabled: false,
      passwordHash: null,
    });
    const actions = (await h.services.db.select().from(auditLog)).map((e) => `${e.action}:${e.userName}`);
    expect(actions).toContain("userCreated:alice@example.test");
    expect(actions.at(-1)).toBe("userLoggedIn:alice@example.test");
    // The request was used: the same response is refused the second time.
    await expectRefused(idp.signed(f), /InResponseTo names no pending request/);
  });

  it("redirects to /home when the new dashboard is off, and follows the Name the IdP gives", async () => {
    await setSetting(h.services.db, "NewUserDashboard", false);
    expect((await acs(idp.signed(await fresh("bob", { cn: ["Bob"] })))).location).toBe("/home");
    expect((await userRow("bob"))?.name).toBe("Bob");
    expect((await acs(idp.signed(await fresh("bob", { displayName: ["Robert"] })))).location).toBe("/home");
    expect((await userRow("bob"))?.name).toBe("Robert");
    expect(await lastAudit()).toMatchObject({ action: "userLoggedIn", userName: "bob" });
    expect(
      (await h.services.db.select().from(auditLog)).some(
        (e) => e.action === "userUpdated" && e.description.includes("name from the IdP"),
      ),
    ).toBe(true);
  });

  it("names the user by the NameID when no name attribute is given", async () => {
    await acs(idp.signed(await fresh("carol")));
    expect((await userRow("carol"))?.name).toBe("carol");
  });

  it("accepts a response signed as a whole (assertion unsigned)", async () => {
    const f = await fresh();
    const r = await acs(b64(signResponse(responseXml(f), idp.keys)));
    expect(r.location).toBe("/home/new");
  });

  it("takes the session length from sessionDuration (1–1440 minutes), else the user's Duration", async () => {
    const ends = async (attributes: Record<string, string[]>, query = "?kioskMode=false") => {
      const f = { ...idp.fields(await start(query), SP, "dave"), attributes };
      const cookie = sessionCookie((await acs(idp.signed(f))).setCookie);
      const session = await h.services.userSessions.resolve(cookie.split("=")[1]);
      return Math.round((session.endsAt - h.clock.now()) / 60_000);
    };
    expect(await ends({ sessionDuration: ["60"] })).toBe(60);
    expect(await ends({ sessionDuration: ["1440"] })).toBe(1440);
    expect(await ends({ sessionDuration: ["1441"] })).toBe(480);
    expect(await ends({ sessionDuration: ["0"] })).toBe(480);
    expect(await ends({ sessionDuration: ["ten"] })).toBe(480);
    expect(await ends({ sessionDuration: ["10", "20"] })).toBe(480);
    expect(await ends({})).toBe(480);
    // Kiosk (public computer): KioskSessionDuration, and never longer with sessionDuration.
    expect(await ends({}, "?kioskMode=true")).toBe(30);
    expect(await ends({ sessionDuration: ["10"] }, "?kioskMode=true")).toBe(10);
    expect(await ends({ sessionDuration: ["600"] }, "?kioskMode=true")).toBe(30);
  });

  it("replaces saml-group membership at every sign-in and revokes grants lost with it", async () => {
    const s = h.services;
    // The ACL reaches the SAML user only through the saml group "eng".
    const eng = await s.groups.create(
      { Name: "eng", Description: "", Type: "saml", ACLIDs: [seed.aclId], UserIDs: [] },
      actor,
    );
    await s.groups.create({ Name: "ops", Description: "", Type: "local", ACLIDs: [], UserIDs: [] }, actor);
    const first = await acs(idp.signed(await fresh("erin", { groups: ["eng", "ops", "unknown"] })));
    const cookie = sessionCookie(first.setCookie);
    const userId = (await userRow("erin"))!.id;
    expect((await s.groups.get(eng)).UserIDs).toEqual([userId]);
    expect((await s.groups.ofUser(userId)).map((g) => g.Name)).toEqual(["eng"]);
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie })).status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);

    // Next sign-in without the group: membership gone, the live grant of the first session revoked.
    expect((await acs(idp.signed(await fresh("erin", { groups: ["ops"] })))).location).toBe("/home/new");
    expect((await s.groups.get(eng)).UserIDs).toEqual([]);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect(
      (await h.services.db.select().from(auditLog)).some(
        (e) => e.action === "userUpdated" && e.userName === "erin" && e.description === "SAML groups: none",
      ),
    ).toBe(true);
  });

  it("creates SAML users beyond the licence's user limit (they count, but are never refused)", async () => {
    await installTestLicence(h, { UserLimit: 1, UserLimitOverage: 0 });
    expect((await acs(idp.signed(await fresh("frank")))).location).toBe("/home/new");
    expect((await userRow("frank"))?.authType).toBe("SAML");
    const list = (await h.services.users.list()).map((u) => [u.UserName, u.Licensed]);
    expect(list).toEqual([
      ["alice", true],
      ["frank", false],
    ]);
  });

  it("reads a NameID holding a comment in full (no truncation to another account)", async () => {
    // The IdP signs "alice@example.test<!---->.evil.test"; c14n drops the comment from what was signed.
    await acs(idp.signed(await fresh("alice@example.test")));
    const f = { ...(await fresh()), nameIdXml: "alice@example.test<!---->.evil.test" };
    const r = await acs(idp.signed(f));
    expect(r.location).toBe("/home/new");
    const session = await h.services.userSessions.resolve(sessionCookie(r.setCookie).split("=")[1]);
    expect(session.userName).toBe("alice@example.test.evil.test");
  });
});

describe("POST /api/saml/acs: refusals (no session, audited)", () => {
  it("refuses an unsigned response", async () => {
    await expectRefused(b64(responseXml(await fresh())), /FAILED_TO_VERIFY_SIGNATURE/);
  });

  it("refuses a response signed by another key, with or without its certificate in KeyInfo", async () => {
    const f = await fresh();
    await expectRefused(idp.signed(f, otherKeys), /UNMATCH_CERTIFICATE/);
    const noKeyInfo = signAssertion(responseXml(f), otherKeys).replace(/<ds:KeyInfo>.*<\/ds:KeyInfo>/s, "");
    await expectRefused(b64(noKeyInfo), /INVALID_SIGNATURE/);
    await expectRefused(b64(signResponse(responseXml(f), otherKeys)), /UNMATCH_CERTIFICATE/);
  });

  it("refuses signature wrapping: the signed assertion moved into Extensions, a forged one in its place", async () => {
    const f = await fresh("alice@example.test");
    const signed = signAssertion(responseXml(f), idp.keys);
    const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const forged = signedAssertion.replace("alice@example.test", "root@example.test");
    const wrapped = signed
      .replace(signedAssertion, forged)
      .replace("<samlp:Status>", `<samlp:Extensions>${signedAssertion}</samlp:Extensions><samlp:Status>`);
    await expectRefused(b64(wrapped), /exactly one assertion/);
    expect(await userRow("root@example.test")).toBeUndefined();
  });

  it("refuses signature wrapping: the signed assertion inside the signature's Object", async () => {
    const f = await fresh("alice@example.test");
    const signed = signAssertion(responseXml(f), idp.keys);
    const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const forged = signedAssertion.replace("alice@example.test", "root@example.test");
    const wrapped = signed
      .replace(signedAssertion, forged)
      .replace("</ds:Signature>", `<ds:Object>${signedAssertion}</ds:Object></ds:Signature>`);
    await expectRefused(b64(wrapped), /exactly one assertion/);
  });

  it("refuses signature wrapping: a duplicated assertion with the signed one moved after a forged one", async () => {
    const f = await fresh("alice@example.test");
    const signed = signAssertion(responseXml(f), idp.keys);
    const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const forged = signedAssertion
      .replace("alice@example.test", "root@example.test")
      .replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, "");
    await expectRefused(b64(signed.replace(signedAssertion, forged + signedAssertion)), /exactly one assertion/);
    await expectRefused(b64(signed.replace(signedAssertion, signedAssertion + forged)), /exactly one assertion/);
  });

  it("refuses a response signed as a whole whose assertion was replaced", async () => {
    const f = await fresh("alice@example.test");
    const signed = signResponse(responseXml(f), idp.keys);
    const replaced = signed.replace("alice@example.test", "root@example.test");
    await expectRefused(b64(replaced), /FAILED_TO_VERIFY_SIGNATURE/);
  });

  it("refuses a wrong audience", async () => {
    await expectRefused(
      idp.signed({ ...(await fresh()), audience: "https://other.example.test/sp" }),
      /audience is not this service provider/,
    );
  });

  it("refuses a wrong recipient", async () => {
    await expectRefused(
      idp.signed({ ...(await fresh()), recipient: "https://other.example.test/acs" }),
      /recipient is not this ACS/,
    );
  });

  it("refuses a wrong destination", async () => {
    await expectRefused(
      idp.signed({ ...(await fresh()), destination: "https://other.example.test/acs" }),
      /destination is not this ACS/,
    );
  });

  it("refuses an unknown InResponseTo, a missing one, and one that disagrees with the response's", async () => {
    const f = await fresh();
    await expectRefused(
      idp.signed({ ...f, inResponseTo: "_unknown", responseInResponseTo: "_unknown" }),
      /InResponseTo names no pending request/,
    );
    await expectRefused(idp.signed({ ...f, inResponseTo: null, responseInResponseTo: null }), /InResponseTo missing/);
    await expectRefused(idp.signed({ ...f, responseInResponseTo: "_other" }), /answer different requests/);
    // The request was not used by the refusals: the genuine answer still signs in.
    expect((await acs(idp.signed(f))).location).toBe("/home/new");
  });

  it("refuses an expired request", async () => {
    const id = await start();
    h.clock.advance(6 * 60_000);
    const now = Date.now() + 6 * 60_000;
    const f = { ...idp.fields(id, SP, "alice@example.test", now), conditionsNotBefore: Date.now() - 30_000 };
    await expectRefused(idp.signed(f), /InResponseTo names no pending request/);
  });

  it("refuses a request of the admins' sign-in", async () => {
    await setSetting(h.services.db, "AdminSAMLMetadataFile", idp.metadata());
    const r = await apiRequest(h, "GET", "/api/admin/login/saml");
    const id = requestIdOf(r.headers.get("location") ?? "");
    await expectRefused(idp.signed(idp.fields(id, SP, "alice@example.test")), /InResponseTo names no pending request/);
  });

  it("refuses an expired NotOnOrAfter (the server's clock, past the 60 s skew)", async () => {
    const f = await fresh();
    await expectRefused(
      idp.signed({ ...f, notOnOrAfter: Date.now() - 61_000 }),
      /expired \(SubjectConfirmationData NotOnOrAfter\)/,
    );
    await expectRefused(idp.signed({ ...f, conditionsNotOnOrAfter: Date.now() - 61_000 }), /ERR_SUBJECT_UNCONFIRMED/);
    h.clock.advance(5 * 60_000 + 61_000);
    await expectRefused(idp.signed(f), /expired/);
  });

  it("accepts a NotOnOrAfter just passed within the skew", async () => {
    const f = await fresh();
    expect((await acs(idp.signed({ ...f, notOnOrAfter: Date.now() - 30_000 }))).location).toBe("/home/new");
  });

  it("refuses a missing NotOnOrAfter", async () => {
    await expectRefused(idp.signed({ ...(await fresh()), notOnOrAfter: null }), /NotOnOrAfter missing/);
  });

  it("refuses a replayed assertion id (a new request, the same assertion)", async () => {
    const first = await fresh();
    expect((await acs(idp.signed(first))).location).toBe("/home/new");
    const second = { ...(await fresh()), assertionId: first.assertionId };
    await expectRefused(idp.signed(second), /assertion replayed/);
  });

  it("remembers an assertion id until its NotOnOrAfter, at most 24 hours", async () => {
    const f = await fresh();
    expect((await acs(idp.signed(f))).location).toBe("/home/new");
    const remembered = (
      await h.services.db.select().from(samlAssertions).where(eq(samlAssertions.id, f.assertionId)).limit(1)
    )[0];
    expect(remembered?.expiresAt).toBe(f.notOnOrAfter! + 60_000);
    const far = { ...(await fresh()), notOnOrAfter: Date.now() + 10 * 365 * 86_400_000 };
    expect((await acs(idp.signed(far))).location).toBe("/home/new");
    const capped = (
      await h.services.db.select().from(samlAssertions).where(eq(samlAssertions.id, far.assertionId)).limit(1)
    )[0];
    expect(capped!.expiresAt - h.clock.now()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(capped!.expiresAt - h.clock.now()).toBeGreaterThan(23 * 3_600_000);
  });

  it("refuses another issuer, a failed status and a transient NameID", async () => {
    const f = await fresh();
    await expectRefused(idp.signed({ ...f, issuer: "https://evil.example.test" }), /ERR_UNMATCH_ISSUER/);
    await expectRefused(
      idp.signed({ ...f, statusCode: "urn:oasis:names:tc:SAML:2.0:status:Requester" }),
      /ERR_FAILED_STATUS/,
    );
    await expectRefused(
      idp.signed({ ...f, nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient" }),
      /transient NameID/,
    );
  });

  it("refuses a NameID too long or empty", async () => {
    const f = await fresh();
    await expectRefused(idp.signed({ ...f, nameIdXml: "x".repeat(257) }), /NameID missing or too long/);
    await expectRefused(idp.signed({ ...f, nameIdXml: " " }), /NameID missing or too long/);
  });

  it("never takes over an account of another kind", async () => {
    await expectRefused(idp.signed(await fresh("alice")), /not a SAML account/);
    expect((await lastAudit())?.userName).toBe("alice");
    expect((await userRow("alice"))?.authType).toBe("local");
  });

  it("answers accountDisabled for a disabled SAML user", async () => {
    await acs(idp.signed(await fresh("gina")));
    await h.services.db.update(users).set({ disabled: true }).where(eq(users.userName, "gina"));
    const sessions = await sessionCount();
    const r = await acs(idp.signed(await fresh("gina")));
    expect(r).toMatchObject({ status: 303, location: "/?error=accountDisabled" });
    expect(r.setCookie).not.toMatch(/postern_session=/);
    expect(await sessionCount()).toBe(sessions);
    expect(await lastAudit()).toMatchObject({
      action: "userLoginFailed",
      userName: "gina",
      errorMessage: "account disabled",
    });
  });

  it("refuses when SAML is not configured", async () => {
    const f = await fresh();
    await setSetting(h.services.db, "SAMLMetadataFile", "");
    await expectRefused(idp.signed(f), /no IdP metadata/, "/?error=SAML%20not%20configured");
  });

  it("refuses a body that is not a form, a form without SAMLResponse, and a SAMLResponse that is not base64", async () => {
    await expectRefused(null, /not a form post/, "/?error=Bad%20request", {
      contentType: "application/json",
      body: "{}",
    });
    await expectRefused(null, /SAMLResponse missing/, "/?error=Bad%20request");
    await expectRefused("<xml/>", /not base64/);
    await expectRefused(b64('<!DOCTYPE x [<!ENTITY a "b">]><samlp:Response/>'), /DOCTYPE/);
  });

  it("keeps the CSRF guard on every other write", async () => {
    const r = await h.app.request(
      "http://postern.test/api/login",
      {
        method: "POST",
        headers: {
          host: "postern.test",
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://idp.example.test",
          "sec-fetch-site": "cross-site",
        },
        body: "UserName=alice",
      },
      socketEnv(),
    );
    expect(r.status).toBe(403);
  });
});

describe("throttling of refused responses", () => {
  it("counts refused responses against the address: after 20 the ACS answers Too many requests without checking", async () => {
    for (let i = 0; i < 20; i++) await acs("bm90IGEgcmVzcG9uc2U=");
    const blocked = await acs("bm90IGEgcmVzcG9uc2U=");
    expect(blocked.status).toBe(303);
    expect(blocked.location).toBe(`/?error=${encodeURIComponent("Too many requests. Please try again in...")}`);
    // Another address is not affected.
    const other = await h.app.request(
      "http://postern.test/api/saml/acs",
      {
        method: "POST",
        headers: { host: "postern.test", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ SAMLResponse: "bm90IGEgcmVzcG9uc2U=" }).toString(),
      },
      socketEnv("198.51.100.77"),
    );
    expect(other.headers.get("location")).not.toContain("Too%20many");
  });
});

describe("SAML users and admins of the same name", () => {
  it("a SAML user named like an admin does not shadow the admin on POST /api/login", async () => {
    await h.services.adminSessions.createLocalAdmin({ userName: "root", name: "Root", password: "root-password" });
    const r = await acs(idp.signed(await fresh("root")));
    expect(r.location).toBe("/home/new");
    expect((await userRow("root"))?.authType).toBe("SAML");
    const login = await apiRequest(h, "POST", "/api/login", {
      UserName: "root",
      Password: "root-password",
      KioskMode: false,
    });
    // The admin signs in (admin cookie, 401 err.unauthorised per the portal's contract).
    expect(login.status).toBe(401);
    expect(login.body).toEqual({ Err: "err.unauthorised" });
    expect(login.setCookie).toMatch(/postern_admin_session=[^;]+;/);
    // The SAML user has no password: a guess is an unknown name, never a SAML session.
    const guess = await apiRequest(h, "POST", "/api/login", { UserName: "root", Password: "x", KioskMode: false });
    expect(guess.status).toBe(401);
    expect(guess.body).toEqual({ Err: "Invalid credentials" });
  });
});

describe("throttling of sign-in starts (one address cannot fill the pending store)", () => {
  const TOO_MANY = `/?error=${encodeURIComponent("Too many requests. Please try again in...")}`;
  const startFrom = (path: string, from: string) =>
    h.app.request(`http://postern.test${path}`, { headers: { host: "postern.test" } }, socketEnv(from));
  const pending = async (audience: "user" | "admin") =>
    (await h.services.db.select().from(samlRequests).where(eq(samlRequests.audience, audience))).length;

  it("stores at most SAML_START_LIMIT starts per address and window, then redirects with Too many requests", async () => {
    await setSetting(h.services.db, "AdminSAMLMetadataFile", idp.metadata());
    const locations: string[] = [];
    for (let i = 0; i < 500; i++) {
      const r = await startFrom("/api/login/saml?kioskMode=false", "203.0.113.5");
      expect(r.status).toBe(302);
      locations.push(r.headers.get("location") ?? "");
      if (i === 499) expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(await pending("user")).toBe(SAML_START_LIMIT);
    expect(locations.filter((l) => l === TOO_MANY)).toHaveLength(500 - SAML_START_LIMIT);
    // The admin start from that address is throttled as well; other addresses are not affected.
    expect((await startFrom("/api/admin/login/saml", "203.0.113.5")).headers.get("location")).toBe(
      `/admin?error=${encodeURIComponent("Too many requests. Please try again in...")}`,
    );
    expect((await startFrom("/api/login/saml", "198.51.100.8")).headers.get("location")).toMatch(/^https:\/\/idp\./);
    expect((await startFrom("/api/admin/login/saml", "198.51.100.8")).headers.get("location")).toMatch(
      /^https:\/\/idp\./,
    );
    expect(await pending("user")).toBe(SAML_START_LIMIT + 1);
    // The block ends.
    h.clock.advance(16 * 60_000);
    expect((await startFrom("/api/login/saml", "203.0.113.5")).headers.get("location")).toMatch(/^https:\/\/idp\./);
  });

  it("takes completed sign-ins back: one address may sign in more often than the limit", async () => {
    for (let i = 0; i < SAML_START_LIMIT + 2; i++) {
      const r = await acs(idp.signed({ ...idp.fields(await start(), SP, "alice@example.test") }));
      expect(r.location).toBe("/home/new");
    }
  });

  it("caps the pending store per audience: a full user store leaves the admins' sign-in open", async () => {
    await setSetting(h.services.db, "AdminSAMLMetadataFile", idp.metadata());
    const now = h.clock.now();
    await h.services.db.transaction(async (tx) => {
      for (let i = 0; i < MAX_PENDING_SAML_REQUESTS; i++)
        await tx
          .insert(samlRequests)
          .values({ id: `_flood${i}`, audience: "user", kiosk: false, createdAt: now, expiresAt: now + 60_000 });
    });
    expect((await startFrom("/api/login/saml", "198.51.100.9")).headers.get("location")).toBe(TOO_MANY);
    expect((await startFrom("/api/admin/login/saml", "198.51.100.9")).headers.get("location")).toMatch(
      /^https:\/\/idp\./,
    );
    expect(await pending("admin")).toBe(1);
  });
});

describe("browser binding over TLS", () => {
  beforeEach(async () => {
    await setSetting(h.services.db, "PublicURL", "https://postern.test");
  });
  const TLS_SP = { acsUrl: "https://postern.test/api/saml/acs", audience: "https://postern.test/api/saml/metadata" };

  it("sets a Secure SameSite=None cookie for the ACS and requires it to match the response", async () => {
    const r = await h.app.request(
      "https://postern.test/api/login/saml?kioskMode=false",
      { headers: { host: "postern.test" } },
      socketEnv(),
    );
    expect(r.status).toBe(302);
    const setCookie = r.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-postern_saml_request=[^;]+;/);
    expect(setCookie).toMatch(/Path=\/(;|$)/);
    expect(setCookie).not.toMatch(/Domain=/i);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/SameSite=None/);
    expect(setCookie).toMatch(/HttpOnly/);
    const id = requestIdOf(r.headers.get("location") ?? "");
    const bound = /__Host-postern_saml_request=[^;]+/.exec(setCookie)![0];
    const f = idp.fields(id, TLS_SP, "alice@example.test");
    await expectRefused(idp.signed(f), /not started in this browser/, FAILED, { base: "https://postern.test" });
    await expectRefused(idp.signed(f), /not started in this browser/, FAILED, {
      base: "https://postern.test",
      cookie: "__Host-postern_saml_request=_other",
    });
    // The unprefixed name (which a sibling host could plant) binds nothing.
    await expectRefused(idp.signed(f), /not started in this browser/, FAILED, {
      base: "https://postern.test",
      cookie: bound.replace("__Host-", ""),
    });
    const ok = await acs(idp.signed(f), { base: "https://postern.test", cookie: bound });
    expect(ok.location).toBe("/home/new");
    expect(ok.setCookie).toMatch(/__Host-postern_session=[A-Za-z0-9_-]{22}; Path=\/; Expires=[^;]+; HttpOnly; Secure/);
  });
});
