import { describe, expect, it } from "vitest";
import { agentVersionState, compareVersions, displayAddress } from "./version.ts";

describe("agent versions (admin-console §4 'Agent version')", () => {
  it("compares dotted versions numerically", () => {
    expect(compareVersions("1.10.0", "1.9.2")).toBe(1);
    expect(compareVersions("1.9.0", "1.9")).toBe(0);
    expect(compareVersions("v1.8.9", "1.9.0")).toBe(-1);
    expect(compareVersions("2.0.0-rc.1", "2.0.0")).toBe(0);
  });

  it("is incompatible below the minimum, out of date below the newest, else up to date", () => {
    const available = [{ version: "1.9.0" }, { version: "1.11.0" }, { version: "1.10.2" }];
    expect(agentVersionState("1.8.9", "1.9.0", available)).toBe("incompatible");
    expect(agentVersionState("1.10.2", "1.9.0", available)).toBe("outOfDate");
    expect(agentVersionState("1.11.0", "1.9.0", available)).toBe("upToDate");
    expect(agentVersionState("1.9.0", "1.9.0", [])).toBe("upToDate");
    expect(agentVersionState("", "1.9.0", available)).toBe("unknown");
  });

  it("strips a single trailing :port from the address, keeping IPv6 addresses whole", () => {
    expect(displayAddress("203.0.113.7:51234")).toBe("203.0.113.7");
    expect(displayAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(displayAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(displayAddress("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(displayAddress("")).toBe("");
  });
});
