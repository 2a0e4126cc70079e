/**
 * What a user sees of a failed grant or revoke (GET /api/status entries' Error): a key the portal
 * turns into a plain sentence, never the enforcement's insides; the full text goes to the audit log.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { GrantStatus, GrantErrorKey } from "@postern/shared";
import type { SessionStatus } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";

const { acls, auditLog } = testTables;

const LEAK = "HAProxy runtime API 127.0.0.1:9999: connect ECONNREFUSED 127.0.0.1:9999";

let h: Harness;
let seed: Seeded;
let cookie = "";

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  const login = await apiRequest(h, "POST", "/api/login", {
    UserName: "alice",
    Password: "alice-password",
    KioskMode: false,
  });
  cookie = login.setCookie.split(";")[0] ?? "";
});
afterEach(async () => {
  await h.close();
});

const status = async () => {
  const r = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
  expect(r.status).toBe(200);
  return r;
};
const entryOf = (body: unknown) => (body as SessionStatus).ACLs.find((a) => a.ACLID === seed.aclId)!;
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));

describe("grant errors in GET /api/status", () => {
  it("show err.grantFailed, never the target's address or the exception; the audit log has the full text", async () => {
    const granted = await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie });
    expect(granted.status).toBe(200);
    await h.services.engine.handleResults("edge", [
      { key: seed.aclId, ip: "203.0.113.5", op: "add", ok: false, error: LEAK },
    ]);
    const r = await status();
    expect(entryOf(r.body)).toMatchObject({ Status: GrantStatus.GrantError, Error: GrantErrorKey.grantFailed });
    expect(JSON.stringify(r.body)).not.toContain("9999");
    expect(JSON.stringify(r.body)).not.toContain("ECONNREFUSED");
    expect(await audits("grantError")).toEqual([expect.objectContaining({ errorMessage: LEAK })]);
  });

  it("show err.revokeFailed for a failed revoke", async () => {
    await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie });
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    const id = entryOf((await status()).body).ID;
    expect(
      (await apiRequest(h, "DELETE", `/api/sessions/current/granted-acls/${id}`, undefined, { cookie })).status,
    ).toBe(200);
    await h.services.engine.handleResults("edge", [
      { key: seed.aclId, ip: "203.0.113.5", op: "del", ok: false, error: `ipset del failed: ${LEAK}` },
    ]);
    const r = await status();
    expect(entryOf(r.body)).toMatchObject({ Status: GrantStatus.RevokedWithError, Error: GrantErrorKey.revokeFailed });
    expect(JSON.stringify(r.body)).not.toContain("ipset");
    expect(await audits("revokeError")).toEqual([
      expect.objectContaining({ errorMessage: `ipset del failed: ${LEAK}` }),
    ]);
  });

  it("show err.addressNotAllowed when the user's address is excluded", async () => {
    await h.services.db
      .update(acls)
      .set({
        ipExclusions: {
          RestrictionType: "denyList",
          RfcType: "allow",
          Ranges: [{ Start: "203.0.113.0", End: "203.0.113.255" }],
        },
      })
      .where(eq(acls.id, seed.aclId));
    const excluded = await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie });
    expect(entryOf(excluded.body)).toMatchObject({
      Status: GrantStatus.GrantError,
      Error: GrantErrorKey.addressNotAllowed,
    });
  });
});

describe("the answers of POST /api/grant and of a revoke", () => {
  it("show the change itself, even when the status was read (and kept) just before", async () => {
    expect(entryOf((await status()).body).Status).toBe(GrantStatus.Created);
    const granted = await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie });
    expect(granted.status).toBe(200);
    expect(entryOf(granted.body).Status).toBe(GrantStatus.Pending);
    expect(entryOf((await status()).body).Status).toBe(GrantStatus.Pending);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    const entry = entryOf((await status()).body);
    expect(entry.Status).toBe(GrantStatus.Granted);
    const revoked = await apiRequest(h, "DELETE", `/api/sessions/current/granted-acls/${entry.ID}`, undefined, {
      cookie,
    });
    expect(revoked.status).toBe(200);
    expect(entryOf(revoked.body).Status).not.toBe(GrantStatus.Granted);
    expect(entryOf(revoked.body).Status).toBe(entryOf((await status()).body).Status);
  });
});
