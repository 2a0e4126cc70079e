import { describe, expect, it } from "vitest";
import { clientAddress, overTls, parseTrustedProxies } from "./client-address.ts";

const trusted = parseTrustedProxies(["127.0.0.1", "10.0.0.0/8"]);

describe("clientAddress", () => {
  it("uses the socket address when the peer is not a trusted proxy", () => {
    expect(clientAddress("198.51.100.1", "203.0.113.9", trusted)).toBe("198.51.100.1");
  });
  it("takes the first untrusted hop from the right behind a trusted proxy", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9, 10.1.2.3", trusted)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:127.0.0.1", "1.2.3.4, 203.0.113.9", trusted)).toBe("203.0.113.9");
  });
  it("falls back to the socket address for a malformed header", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9, nonsense", trusted)).toBe("127.0.0.1");
  });
  it("refuses an invalid proxy entry", () => {
    expect(() => parseTrustedProxies(["not-an-ip"])).toThrow(/invalid trusted proxy/);
  });
});

describe("overTls", () => {
  it("believes X-Forwarded-Proto only from a trusted proxy", () => {
    expect(overTls("http://p/x", "127.0.0.1", "https", trusted)).toBe(true);
    expect(overTls("http://p/x", "198.51.100.1", "https", trusted)).toBe(false);
    expect(overTls("https://p/x", "198.51.100.1", undefined, trusted)).toBe(true);
    expect(overTls("http://p/x", "127.0.0.1", "http", trusted)).toBe(false);
  });
});
