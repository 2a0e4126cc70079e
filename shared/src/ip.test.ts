import { describe, expect, it } from "vitest";
import { normaliseIp } from "./ip.ts";

describe("normaliseIp", () => {
  it("answers the same on every call, also after more inputs than it keeps", () => {
    const first = ["::ffff:192.0.2.1", "2001:DB8::1", " 10.0.0.1 ", "fe80::1%eth0", "192.0.2.01", "nope"].map(
      normaliseIp,
    );
    expect(first).toEqual([
      { ip: "192.0.2.1", family: "inet" },
      { ip: "2001:db8::1", family: "inet6" },
      { ip: "10.0.0.1", family: "inet" },
      { ip: "fe80::1", family: "inet6" },
      null,
      null,
    ]);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) {
        const text = `10.${(i >> 8) & 255}.${i & 255}.${round}`;
        expect(normaliseIp(text)).toEqual({ ip: text, family: "inet" });
      }
      expect(
        ["::ffff:192.0.2.1", "2001:DB8::1", " 10.0.0.1 ", "fe80::1%eth0", "192.0.2.01", "nope"].map(normaliseIp),
      ).toEqual(first);
    }
  });
});
