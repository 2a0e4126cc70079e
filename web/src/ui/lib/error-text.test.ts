import { describe, expect, it } from "vitest";
import { composeErrorText, isErrorBody } from "./error-text.ts";
import { pickLocale } from "./locale.ts";

const dict: Record<string, string> = {
  "err.invalidSession": "Ungültige Sitzung",
  "Invalid credentials": "Ungültige Anmeldedaten",
  "err.userLimitReached": "Grenze erreicht",
};
const translate = (key: string): string | undefined => dict[key];
const internal = "An internal server error occurred";

describe("composeErrorText (user-portal §8)", () => {
  it("translates Err and appends Extra after a colon", () => {
    expect(composeErrorText({ Err: "Invalid credentials" }, undefined, translate, internal)).toBe(
      "Ungültige Anmeldedaten",
    );
    expect(
      composeErrorText({ Err: "Invalid credentials", Extra: "3 attempts left" }, undefined, translate, internal),
    ).toBe("Ungültige Anmeldedaten: 3 attempts left");
  });
  it("translates Extra when it starts with err.", () => {
    expect(
      composeErrorText({ Err: "err.invalidSession", Extra: "err.userLimitReached" }, undefined, translate, internal),
    ).toBe("Ungültige Sitzung: Grenze erreicht");
    expect(composeErrorText({ Err: "Bad", Extra: "err.unknownKey" }, undefined, translate, internal)).toBe(
      "Bad: err.unknownKey",
    );
  });
  it("falls back to the message text, then the internal-error text", () => {
    expect(composeErrorText(undefined, "Failed to fetch", translate, internal)).toBe("Failed to fetch");
    expect(composeErrorText(undefined, "", translate, internal)).toBe(internal);
    expect(composeErrorText({ Err: "" }, undefined, translate, internal)).toBe(internal);
  });
  it("recognises error bodies", () => {
    expect(isErrorBody({ Err: "x" })).toBe(true);
    expect(isErrorBody({ Err: "x", Extra: 1 })).toBe(false);
    expect(isErrorBody("x")).toBe(false);
  });
});

describe("pickLocale (user-portal §1)", () => {
  it("chooses de for German browsers and en otherwise, formatting with en-AU as fallback", () => {
    expect(pickLocale(["de-CH", "en"])).toEqual({ locale: "de", formatLocales: ["de-CH", "de"] });
    expect(pickLocale(["de"])).toEqual({ locale: "de", formatLocales: ["de"] });
    expect(pickLocale(["en-US"])).toEqual({ locale: "en", formatLocales: ["en-US", "en-AU"] });
    expect(pickLocale(["fr-FR", "de-DE"])).toEqual({ locale: "de", formatLocales: ["de-DE", "de"] });
    expect(pickLocale(["fr-FR"])).toEqual({ locale: "en", formatLocales: ["en-AU"] });
    expect(pickLocale([])).toEqual({ locale: "en", formatLocales: ["en-AU"] });
  });
});
