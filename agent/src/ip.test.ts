import { describe, expect, it } from "vitest";
import { normaliseIp as sharedNormaliseIp } from "@postern/shared";
import { canonicalIp, normaliseIp } from "./ip.ts";

const inputs = [
  "192.0.2.1",
  "0.0.0.0",
  "255.255.255.255",
  "10.1.39.16",
  " 192.0.2.1 ",
  "192.0.2.01",
  "010.0.0.1",
  "256.1.1.1",
  "1.2.3",
  "1.2.3.4.5",
  "::ffff:192.0.2.1",
  "2001:DB8::1",
  "2001:db8:0:0:0:0:0:1",
  "fe80::1%eth0",
  "not an address",
  "",
];

describe("agent normaliseIp / canonicalIp", () => {
  it("answers exactly as the shared normaliseIp for every kind of input", () => {
    for (const input of inputs) {
      expect(normaliseIp(input), input).toEqual(sharedNormaliseIp(input));
      expect(canonicalIp(input), input).toBe(sharedNormaliseIp(input)?.ip ?? null);
    }
  });

  it("agrees on ten thousand random dotted quads (the fast path)", () => {
    let seed = 42;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let i = 0; i < 10_000; i++) {
      const ip = `${next()}.${next()}.${next()}.${next()}`;
      expect(canonicalIp(ip)).toBe(sharedNormaliseIp(ip)?.ip);
    }
  });
});
