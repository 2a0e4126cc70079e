import { describe, expect, it } from "vitest";
import { reclaimMemory } from "./reclaim.ts";

describe("reclaimMemory", () => {
  it("runs one full, synchronous, memory-reducing collection through gc and returns its duration", () => {
    const calls: unknown[] = [];
    const ms = reclaimMemory((options: unknown) => calls.push(options));
    expect(calls).toEqual([{ type: "major", execution: "sync", flavor: "last-resort" }]);
    expect(ms).toBeGreaterThanOrEqual(0);
  });

  it("does nothing without gc (node without --expose-gc) and never throws", () => {
    expect(reclaimMemory(undefined)).toBeNull();
    expect(
      reclaimMemory(() => {
        throw new Error("unsupported option");
      }),
    ).toBeNull();
  });
});
