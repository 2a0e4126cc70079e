import { describe, expect, it } from "vitest";
import { isDarkMode, parseColorMode } from "../../ui/lib/colour-mode.ts";
import { passwordFormProblems, strengthSegments } from "./password.ts";

describe("passwordFormProblems (user-portal §5)", () => {
  const ok = { current: "old-password", next: "a-new-password", confirm: "a-new-password" };
  it("accepts a complete form", () => {
    expect(passwordFormProblems(ok)).toEqual([]);
  });
  it("requires the current and the new password", () => {
    expect(passwordFormProblems({ current: "", next: "", confirm: "" })).toEqual([
      { field: "current", problem: "required" },
      { field: "next", problem: "required" },
    ]);
  });
  it("wants 8 to 64 characters, counted as characters not UTF-16 units", () => {
    expect(passwordFormProblems({ ...ok, next: "1234567", confirm: "1234567" })).toEqual([
      { field: "next", problem: "length" },
    ]);
    expect(passwordFormProblems({ ...ok, next: "12345678", confirm: "12345678" })).toEqual([]);
    expect(passwordFormProblems({ ...ok, next: "x".repeat(64), confirm: "x".repeat(64) })).toEqual([]);
    expect(passwordFormProblems({ ...ok, next: "x".repeat(65), confirm: "x".repeat(65) })).toEqual([
      { field: "next", problem: "length" },
    ]);
    const emoji = "🔒".repeat(8);
    expect(passwordFormProblems({ ...ok, next: emoji, confirm: emoji })).toEqual([]);
  });
  it("wants the confirmation to match", () => {
    expect(passwordFormProblems({ ...ok, confirm: "a-new-passwort" })).toEqual([
      { field: "confirm", problem: "mismatch" },
    ]);
  });
  it("fills at least one meter segment", () => {
    expect([0, 1, 2, 3, 4].map((s) => strengthSegments(s as 0 | 1 | 2 | 3 | 4))).toEqual([1, 1, 2, 3, 4]);
  });
});

describe("colour mode (user-portal §1: light, dark, auto)", () => {
  it("reads the stored names and follows the system for auto", () => {
    expect(parseColorMode("dark")).toBe("dark");
    expect(parseColorMode("light")).toBe("light");
    expect(parseColorMode("system")).toBe("auto");
    expect(parseColorMode(undefined)).toBe("auto");
    expect(isDarkMode("auto", true)).toBe(true);
    expect(isDarkMode("auto", false)).toBe(false);
    expect(isDarkMode("light", true)).toBe(false);
    expect(isDarkMode("dark", false)).toBe(true);
  });
});
