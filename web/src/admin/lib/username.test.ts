import { describe, expect, it } from "vitest";
import { usernameFromName } from "./username.ts";

describe("usernameFromName (admin-console §5)", () => {
  it("lower-cases and turns runs of spaces into one dot", () => {
    expect(usernameFromName("Ada Lovelace")).toBe("ada.lovelace");
    expect(usernameFromName("  Jean  Paul   Sartre ")).toBe("jean.paul.sartre");
    expect(usernameFromName("")).toBe("");
  });
});
