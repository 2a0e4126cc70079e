import { describe, expect, it } from "vitest";
import { loginOutcome, noFieldFocused } from "./login-outcome.ts";

describe("loginOutcome (user-portal §4)", () => {
  it("maps login answers to the next step", () => {
    expect(loginOutcome(undefined)).toEqual({ kind: "home" });
    expect(loginOutcome("err.totpVerificationRequired")).toEqual({ kind: "totpVerify" });
    expect(loginOutcome("err.totpEnrolmentRequired")).toEqual({ kind: "totpEnrol" });
    expect(loginOutcome("Unauthorised")).toEqual({ kind: "admin", path: "/admin/home" });
    expect(loginOutcome("err.unauthorised")).toEqual({ kind: "admin", path: "/admin/home" });
    expect(loginOutcome("err.unauthorised", "err.totpVerificationRequired")).toEqual({
      kind: "admin",
      path: "/admin/otp/verify",
    });
    expect(loginOutcome("err.unauthorised", "err.totpEnrolmentRequired")).toEqual({
      kind: "admin",
      path: "/admin/otp/onboard",
    });
    expect(loginOutcome("Invalid credentials")).toEqual({ kind: "error" });
    expect(loginOutcome("accountDisabled")).toEqual({ kind: "error" });
  });
});

describe("noFieldFocused (Enter starts SSO, user-portal §2)", () => {
  const el = (tagName: string) => ({ tagName }) as Element;
  it("is true only when the body, the root or nothing has the focus", () => {
    const body = el("BODY");
    expect(noFieldFocused(body, body)).toBe(true);
    expect(noFieldFocused(null, body)).toBe(true);
    expect(noFieldFocused(el("HTML"), body)).toBe(true);
    expect(noFieldFocused(el("INPUT"), body)).toBe(false);
    expect(noFieldFocused(el("BUTTON"), body)).toBe(false);
    expect(noFieldFocused(el("A"), body)).toBe(false);
  });
});
