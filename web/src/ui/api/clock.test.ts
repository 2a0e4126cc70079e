import { describe, expect, it } from "vitest";
import { noteServerDate, serverNow } from "./clock.ts";

describe("server clock offset", () => {
  it("follows the Date header beyond ±2 s and ignores small or bad values", () => {
    const now = Date.now();
    noteServerDate(new Date(now + 60_000).toUTCString(), now);
    expect(serverNow() - Date.now()).toBeGreaterThan(58_000);
    expect(serverNow() - Date.now()).toBeLessThan(62_000);
    noteServerDate("garbage", now);
    expect(serverNow() - Date.now()).toBeGreaterThan(58_000);
    noteServerDate(new Date(now).toUTCString(), now);
    expect(Math.abs(serverNow() - Date.now())).toBeLessThan(50);
  });
});
