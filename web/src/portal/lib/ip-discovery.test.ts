import { describe, expect, it } from "vitest";
import { discoveryTargets, isOwnHost, MAX_DISCOVERY_TARGETS, parseDiscoveryAnswer } from "./ip-discovery.ts";

describe("discoveryTargets (user-portal §7)", () => {
  it("asks the URL on each port, the default port written as none", () => {
    expect(discoveryTargets("https://gw.example.com/api/ip", [443, 222, 3389, 8000])).toEqual([
      { Port: 443, url: "https://gw.example.com/api/ip" },
      { Port: 222, url: "https://gw.example.com:222/api/ip" },
      { Port: 3389, url: "https://gw.example.com:3389/api/ip" },
      { Port: 8000, url: "https://gw.example.com:8000/api/ip" },
    ]);
  });
  it("replaces a port the URL has, and asks the URL as written when no port is given", () => {
    expect(discoveryTargets("http://127.0.0.1:8080/api/ip", [41000])).toEqual([
      { Port: 41000, url: "http://127.0.0.1:41000/api/ip" },
    ]);
    expect(discoveryTargets("http://127.0.0.1:8080/api/ip", [])).toEqual([
      { Port: 8080, url: "http://127.0.0.1:8080/api/ip" },
    ]);
    expect(discoveryTargets("https://ip.example.net/", [])).toEqual([{ Port: 443, url: "https://ip.example.net/" }]);
  });
  it("asks nothing when discovery is off or the URL is not http(s), and skips bad or repeated ports", () => {
    expect(discoveryTargets("", [443])).toEqual([]);
    expect(discoveryTargets("javascript:alert(1)", [])).toEqual([]);
    expect(discoveryTargets("not a url", [443])).toEqual([]);
    expect(discoveryTargets("https://gw.example.com/ip", [0, 70000, 1.5, 222, 222]).map((t) => t.Port)).toEqual([222]);
    expect(
      discoveryTargets(
        "https://gw.example.com/ip",
        Array.from({ length: 40 }, (_, i) => 1000 + i),
      ),
    ).toHaveLength(MAX_DISCOVERY_TARGETS);
  });
});

describe("parseDiscoveryAnswer", () => {
  it("reads Postern's {IP}, the common {ip}, and a bare address", () => {
    expect(parseDiscoveryAnswer('{"IP":"198.51.100.7"}')).toBe("198.51.100.7");
    expect(parseDiscoveryAnswer('{"ip":"2001:db8::1"}')).toBe("2001:db8::1");
    expect(parseDiscoveryAnswer("203.0.113.9\n")).toBe("203.0.113.9");
  });
  it("refuses anything else", () => {
    expect(parseDiscoveryAnswer("<html>")).toBeUndefined();
    expect(parseDiscoveryAnswer('{"IP":"<script>"}')).toBeUndefined();
    expect(parseDiscoveryAnswer('{"IP":5}')).toBeUndefined();
    expect(parseDiscoveryAnswer("abc")).toBeUndefined();
    expect(parseDiscoveryAnswer("")).toBeUndefined();
  });
});

describe("isOwnHost", () => {
  it("compares host names only", () => {
    expect(isOwnHost("https://gw.example.com:222/api/ip", "gw.example.com")).toBe(true);
    expect(isOwnHost("https://ip.example.net/", "gw.example.com")).toBe(false);
    expect(isOwnHost("nonsense", "gw.example.com")).toBe(false);
  });
});
