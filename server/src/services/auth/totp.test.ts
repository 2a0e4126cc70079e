/**
 * The TOTP service's parts: RFC 6238 codes (test vectors), ±1 step, the used-step rule, the
 * otpauth:// URL, the enrolment key sealed and kept across restarts, the conditional step write.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { testTables } from "../../testing/database.ts";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { getSetting, setSetting } from "../settings.ts";
import { SecretBox } from "../secrets/at-rest.ts";
import { recordTotpStep } from "../../repositories/totp.ts";
import { TotpService, checkTotpCode, totpStep, totpUrl } from "./totp.ts";
import type { TotpSubject } from "./totp.ts";

const { admins } = testTables;

/** RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890" in base32. */
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("checkTotpCode", () => {
  it("matches the RFC 6238 SHA-1 test vectors (last 6 of the 8 digits) and answers the step", () => {
    expect(checkTotpCode(RFC_SECRET, "287082", 59_000, null)).toBe(1);
    expect(checkTotpCode(RFC_SECRET, "081804", 1_111_111_109_000, null)).toBe(37_037_036);
    expect(checkTotpCode(RFC_SECRET, "050471", 1_111_111_111_000, null)).toBe(37_037_037);
    expect(checkTotpCode(RFC_SECRET, "005924", 1_234_567_890_000, null)).toBe(41_152_263);
  });

  it("accepts one step either side, not two", () => {
    const at = 1_234_567_890_000; // step 41152263
    expect(checkTotpCode(RFC_SECRET, "005924", at + 30_000, null)).toBe(41_152_263);
    expect(checkTotpCode(RFC_SECRET, "005924", at - 30_000, null)).toBe(41_152_263);
    expect(checkTotpCode(RFC_SECRET, "005924", at + 60_000, null)).toBeNull();
    expect(checkTotpCode(RFC_SECRET, "005924", at - 60_000, null)).toBeNull();
  });

  it("refuses steps at or before the last used one", () => {
    const at = 1_234_567_890_000;
    expect(checkTotpCode(RFC_SECRET, "005924", at, 41_152_262)).toBe(41_152_263);
    expect(checkTotpCode(RFC_SECRET, "005924", at, 41_152_263)).toBeNull();
    expect(checkTotpCode(RFC_SECRET, "005924", at, 41_152_264)).toBeNull();
  });

  it("refuses malformed codes without throwing, and ignores spaces", () => {
    for (const code of ["", "5924", "0059245", "00592a", "-05924", "００５９２４"]) {
      expect(checkTotpCode(RFC_SECRET, code, 1_234_567_890_000, null)).toBeNull();
    }
    expect(checkTotpCode(RFC_SECRET, " 005 924 ", 1_234_567_890_000, null)).toBe(41_152_263);
  });

  it("counts 30-second steps from the Unix epoch", () => {
    expect(totpStep(0)).toBe(0);
    expect(totpStep(29_999)).toBe(0);
    expect(totpStep(30_000)).toBe(1);
    expect(totpStep(1_234_567_890_000)).toBe(41_152_263);
  });

  it("builds the otpauth:// URL with issuer Postern and the account name", () => {
    expect(totpUrl("alice", RFC_SECRET)).toBe(`otpauth://totp/Postern:alice?secret=${RFC_SECRET}&issuer=Postern`);
    expect(totpUrl("a b@c", RFC_SECRET)).toBe(`otpauth://totp/Postern:a%20b%40c?secret=${RFC_SECRET}&issuer=Postern`);
  });
});

describe("TotpService", () => {
  let h: Harness;
  let subject: TotpSubject;

  beforeEach(async () => {
    h = await createHarness();
    await h.services.adminSessions.createLocalAdmin({ userName: "bob", name: "Bob", password: "bob-password" });
    const row = (await h.services.db.select().from(admins).where(eq(admins.userName, "bob")).limit(1))[0]!;
    await h.services.db.update(admins).set({ totpEnabled: true }).where(eq(admins.id, row.id));
    const signed = await h.services.adminSessions.login({ userName: "bob", password: "bob-password", ip: "127.0.0.1" });
    expect(signed.pending).toBe("enrol");
    subject = {
      kind: "admin",
      accountId: row.id,
      sessionId: signed.session.sessionId,
      userName: "bob",
      ip: "127.0.0.1",
    };
  });
  afterEach(async () => {
    await h.close();
  });

  it("keeps the enrolment key sealed in a setting, so a restarted server shows the same secret", async () => {
    const first = (await h.services.totp.generate(subject)).Secret;
    const sealed = await getSetting(h.services.db, "TotpEnrolmentKeySealed");
    expect(sealed).toMatch(/^v1\./);
    const restarted = new TotpService(
      { db: h.services.db, clock: h.clock, engine: h.services.engine },
      h.services.secrets,
    );
    expect((await restarted.generate(subject)).Secret).toBe(first);
    expect(await getSetting(h.services.db, "TotpEnrolmentKeySealed")).toBe(sealed);
  });

  it("replaces an enrolment key it cannot open (another data-dir key): only enrolments in progress change", async () => {
    const first = (await h.services.totp.generate(subject)).Secret;
    const otherKey = new TotpService(
      { db: h.services.db, clock: h.clock, engine: h.services.engine },
      new SecretBox(randomBytes(32)),
    );
    const second = (await otherKey.generate(subject)).Secret;
    expect(second).not.toBe(first);
    expect(await getSetting(h.services.db, "TotpEnrolmentKeySealed")).not.toBe("");
    // A corrupt value is replaced too.
    await setSetting(h.services.db, "TotpEnrolmentKeySealed", "garbage");
    expect((await h.services.totp.generate(subject)).Secret).toMatch(/^[A-Z2-7]{32}$/);
  });

  it("writes a step only when it is later than the stored one and the secret is the expected one", async () => {
    const db = h.services.db;
    expect(
      await recordTotpStep(db, "admin", subject.accountId, 100, { expectSecretEnc: null, newSecretEnc: "v1.a" }),
    ).toBe(true);
    expect(await recordTotpStep(db, "admin", subject.accountId, 100, { expectSecretEnc: "v1.a" })).toBe(false);
    expect(await recordTotpStep(db, "admin", subject.accountId, 99, { expectSecretEnc: "v1.a" })).toBe(false);
    // A concurrent enrolment already stored a secret: a second one does not overwrite it.
    expect(
      await recordTotpStep(db, "admin", subject.accountId, 200, { expectSecretEnc: null, newSecretEnc: "v1.b" }),
    ).toBe(false);
    expect(await recordTotpStep(db, "admin", subject.accountId, 101, { expectSecretEnc: "v1.a" })).toBe(true);
    expect((await db.select().from(admins).where(eq(admins.id, subject.accountId)).limit(1))[0]).toMatchObject({
      totpSecretEnc: "v1.a",
      totpLastStep: 101,
    });
  });

  it("defers only admins", async () => {
    await setSetting(h.services.db, "AllowAdminTotpDeferral", true);
    await expect(h.services.totp.deferEnrolment({ ...subject, kind: "user" })).rejects.toThrow(
      "2FA enrolment cannot be deferred",
    );
    await expect(h.services.totp.deferEnrolment(subject)).resolves.not.toThrow();
  });
});
