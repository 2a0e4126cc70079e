import { describe, expect, it } from "vitest";
import { relativeTime } from "./relative-time.ts";

describe("relativeTime", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  it("picks the largest fitting unit, in the page's locale", () => {
    expect(relativeTime("2026-11-23T11:59:30Z", now, "en")).toBe("30 seconds ago");
    expect(relativeTime("2026-11-23T11:55:00Z", now, "en")).toBe("5 minutes ago");
    expect(relativeTime("2026-11-22T12:00:00Z", now, "en")).toBe("yesterday");
    expect(relativeTime("2026-11-23T15:00:00Z", now, "en")).toBe("in 3 hours");
    expect(relativeTime("2026-11-23T11:55:00Z", now, "de")).toBe("vor 5 Minuten");
    expect(relativeTime("not a date", now, "en")).toBe("");
  });
});
