import { describe, expect, it } from "vitest";
import { overageCount } from "@postern/shared";
import type { LicensePayload } from "@postern/shared";
import { EXPIRY_WARNING_MS, allowedUsers, isExpired, licenceState } from "./state.ts";

const DAY = 86_400_000;
const now = Date.parse("2026-03-01T12:00:00.000Z");
const lic = (over: Partial<LicensePayload> = {}): LicensePayload => ({
  ID: "t",
  UserLimit: 10,
  UserLimitOverage: 30,
  SessionLimit: 3,
  MaxMachines: 5,
  Expires: null,
  ...over,
});
const inDays = (d: number) => new Date(now + d * DAY).toISOString();

describe("licence state", () => {
  it("warns 60 days ahead", () => {
    expect(EXPIRY_WARNING_MS).toBe(60 * DAY);
  });

  it("is active 61 days before Expires and expiringSoon from 60 days", () => {
    expect(licenceState(lic({ Expires: inDays(61) }), 1, now)).toBe("active");
    expect(licenceState(lic({ Expires: new Date(now + 60 * DAY + 1).toISOString() }), 1, now)).toBe("active");
    expect(licenceState(lic({ Expires: inDays(60) }), 1, now)).toBe("expiringSoon");
    expect(licenceState(lic({ Expires: inDays(1) }), 1, now)).toBe("expiringSoon");
  });

  it("is expired from the instant Expires is reached (yesterday, and exactly now)", () => {
    expect(licenceState(lic({ Expires: inDays(-1) }), 1, now)).toBe("expired");
    expect(licenceState(lic({ Expires: new Date(now).toISOString() }), 1, now)).toBe("expired");
    expect(licenceState(lic({ Expires: new Date(now + 1).toISOString() }), 1, now)).toBe("expiringSoon");
    expect(isExpired(lic({ Expires: inDays(-1) }), now)).toBe(true);
    expect(isExpired(lic({ Expires: null }), now + 1000 * 365 * DAY)).toBe(false);
  });

  it("is overLimit with more counted users than UserLimit (the overage is still over), active at the limit", () => {
    expect(licenceState(lic(), 10, now)).toBe("active");
    expect(licenceState(lic(), 11, now)).toBe("overLimit");
    expect(licenceState(lic(), 13, now)).toBe("overLimit");
  });

  it("ranks expired over overLimit over expiringSoon", () => {
    expect(licenceState(lic({ Expires: inDays(-1) }), 50, now)).toBe("expired");
    expect(licenceState(lic({ Expires: inDays(5) }), 50, now)).toBe("overLimit");
  });

  it("admits UserLimit plus floor(UserLimit × overage %) users", () => {
    expect(overageCount(lic())).toBe(3);
    expect(allowedUsers(lic())).toBe(13);
    expect(allowedUsers(lic({ UserLimit: 7, UserLimitOverage: 30 }))).toBe(9); // 2.1 → 2
    expect(allowedUsers(lic({ UserLimit: 1, UserLimitOverage: 0 }))).toBe(1);
    expect(allowedUsers(lic({ UserLimit: 3, UserLimitOverage: 33 }))).toBe(3); // 0.99 → 0
  });
});
