import { describe, expect, it } from "vitest";
import { daysUntil, formatHms, formatTimeLeft, isExpiringSoon, secondsUntil } from "./format.ts";

describe("formatHms (session countdown, user-portal §2)", () => {
  it("pads hours, minutes and seconds", () => {
    expect(formatHms(0)).toBe("00:00:00");
    expect(formatHms(59)).toBe("00:00:59");
    expect(formatHms(3661)).toBe("01:01:01");
    expect(formatHms(8 * 3600)).toBe("08:00:00");
  });
  it("grows past 99 hours instead of wrapping", () => {
    expect(formatHms(120 * 3600 + 5)).toBe("120:00:05");
  });
  it("shows zero for negative, fractional-negative and NaN input", () => {
    expect(formatHms(-5)).toBe("00:00:00");
    expect(formatHms(Number.NaN)).toBe("00:00:00");
    expect(formatHms(59.9)).toBe("00:00:59");
  });
});

describe("formatTimeLeft (grant badge)", () => {
  it("uses the two largest units", () => {
    expect(formatTimeLeft(45)).toBe("45s");
    expect(formatTimeLeft(14 * 60 + 59)).toBe("14m 59s");
    expect(formatTimeLeft(3600 + 5 * 60)).toBe("1h 05m");
    expect(formatTimeLeft(2 * 86_400 + 3 * 3600 + 59)).toBe("2d 3h");
  });
  it("is empty when nothing is left", () => {
    expect(formatTimeLeft(0)).toBe("");
    expect(formatTimeLeft(-10)).toBe("");
    expect(formatTimeLeft(Number.NaN)).toBe("");
  });
});

describe("secondsUntil / isExpiringSoon / daysUntil", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("counts whole seconds to an ISO time", () => {
    expect(secondsUntil("2026-01-01T00:15:00Z", now)).toBe(900);
    expect(secondsUntil("2025-12-31T23:59:59.500Z", now)).toBe(-1);
    expect(secondsUntil("not a time", now)).toBeNaN();
  });
  it("turns orange strictly below 900 s (user-portal §4)", () => {
    expect(isExpiringSoon(899, 900)).toBe(true);
    expect(isExpiringSoon(900, 900)).toBe(false);
    expect(isExpiringSoon(0, 900)).toBe(false);
    expect(isExpiringSoon(Number.NaN, 900)).toBe(false);
  });
  it("rounds days up and ignores missing values", () => {
    expect(daysUntil("2026-01-12T12:00:00Z", now)).toBe(12);
    expect(daysUntil(null, now)).toBeUndefined();
    expect(daysUntil("", now)).toBeUndefined();
  });
});
