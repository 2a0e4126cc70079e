import { describe, expect, it } from "vitest";
import type { StatusAcl } from "@postern/shared";
import { pollDone } from "./acl.ts";
import { matchingAcls, MAX_REFERRER_LENGTH, parseReferrer, referrerDecision } from "./referrer.ts";

let n = 0;
function acl(over: Partial<StatusAcl>): StatusAcl {
  n += 1;
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  return {
    ID: id,
    ACLID: id,
    ParentID: "00000000-0000-0000-0000-000000000000",
    Description: `Knoc ${n}`,
    URL: "",
    Icon: "",
    Category: "Default",
    Status: 0,
    Error: "",
    ExpiredAfter: "",
    ClickToGrant: false,
    CGNATOpen: false,
    HideFromUsers: false,
    DisableForUser: false,
    GrantTypeFixedIps: false,
    AutoBrowseUsers: false,
    Config: { UriToken: "" },
    ...over,
  };
}

describe("parseReferrer", () => {
  it("takes absolute http and https URLs", () => {
    expect(parseReferrer("https://wiki.example.com/page?x=1#top")?.href).toBe("https://wiki.example.com/page?x=1#top");
    expect(parseReferrer("http://10.0.0.5:8080/a")?.origin).toBe("http://10.0.0.5:8080");
  });

  it("refuses other schemes, relative, malformed, credentials and over-long text", () => {
    for (const raw of [
      "",
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "ftp://wiki.example.com/",
      "file:///etc/passwd",
      "/home/new",
      "//evil.example.com/",
      "wiki.example.com/page",
      "http://",
      "https://user:pw@wiki.example.com/",
      "https://user@wiki.example.com/",
      `https://wiki.example.com/${"a".repeat(MAX_REFERRER_LENGTH)}`,
    ])
      expect(parseReferrer(raw), raw).toBeUndefined();
  });
});

describe("matchingAcls", () => {
  const wiki = acl({ URL: "https://wiki.example.com/start" });
  const wikiPort = acl({ URL: "https://wiki.example.com:8443/" });
  const plain = acl({ URL: "http://wiki.example.com" });
  const ssh = acl({ URL: "ssh://wiki.example.com" });
  const none = acl({ URL: "" });
  const acls = [wiki, wikiPort, plain, ssh, none];
  const ref = (raw: string) => parseReferrer(raw)!;

  it("matches scheme, host and port exactly, whatever the path", () => {
    expect(matchingAcls(ref("https://wiki.example.com/deep/page?q=1"), acls)).toEqual([wiki]);
    expect(matchingAcls(ref("https://wiki.example.com:443/x"), acls)).toEqual([wiki]);
    expect(matchingAcls(ref("https://WIKI.example.com/x"), acls)).toEqual([wiki]);
    expect(matchingAcls(ref("https://wiki.example.com:8443/x"), acls)).toEqual([wikiPort]);
    expect(matchingAcls(ref("http://wiki.example.com:80/x"), acls)).toEqual([plain]);
  });

  it("does not match another scheme, port, sub- or look-alike host", () => {
    for (const raw of [
      "http://wiki.example.com:8443/",
      "https://wiki.example.com:444/",
      "https://evil.wiki.example.com/",
      "https://wiki.example.com.evil.test/",
      "https://example.com/",
    ])
      expect(matchingAcls(ref(raw), acls), raw).toEqual([]);
  });

  it("leaves out Knocs disabled for the user", () => {
    const disabled = acl({ URL: "https://staff.example.com", DisableForUser: true });
    expect(matchingAcls(ref("https://staff.example.com/"), [disabled])).toEqual([]);
  });
});

describe("referrerDecision", () => {
  const at = (Status: number, over: Partial<StatusAcl> = {}) =>
    acl({ URL: "https://app.example.com:9443/", Status, ...over });
  const raw = "https://app.example.com:9443/reports/7?tab=2#chart";

  it("follows the full referrer once a matching Knoc is Granted", () => {
    expect(referrerDecision(raw, [at(0)])).toEqual({ kind: "follow", url: raw });
    expect(referrerDecision(raw, [at(1), at(0)])).toEqual({ kind: "follow", url: raw });
  });

  it("waits while a grant is on its way (2, 3, 5, 6, 8)", () => {
    for (const status of [2, 3, 5, 6, 8]) {
      const entry = at(status);
      expect(referrerDecision(raw, [entry]), String(status)).toEqual({ kind: "wait", acl: entry, needsClick: false });
    }
  });

  it("waits for the Grant click when the Knoc is ready (4, 9), unless it is hidden from users", () => {
    const click = at(4, { ClickToGrant: true });
    expect(referrerDecision(raw, [click])).toEqual({ kind: "wait", acl: click, needsClick: true });
    const revoked = at(9);
    expect(referrerDecision(raw, [revoked])).toEqual({ kind: "wait", acl: revoked, needsClick: true });
    expect(referrerDecision(raw, [at(4, { HideFromUsers: true })])).toEqual({ kind: "ignore", reason: "noMatch" });
  });

  it("prefers a grant on its way over a click, and a click over a failure", () => {
    const pending = at(2);
    expect(referrerDecision(raw, [at(1), at(4), pending])).toMatchObject({ kind: "wait", acl: pending });
    const ready = at(9);
    expect(referrerDecision(raw, [at(10), ready])).toMatchObject({ kind: "wait", acl: ready, needsClick: true });
  });

  it("ignores a referrer whose grants all failed, naming the Knoc", () => {
    const failed = at(1);
    expect(referrerDecision(raw, [failed, at(10)])).toEqual({ kind: "ignore", reason: "failed", acl: failed });
  });

  it("ignores referrers of no Knoc of the user: other origin, scheme, port, bad schemes, malformed", () => {
    const acls = [at(0), acl({ URL: "javascript:alert(1)" }), acl({ URL: "not a url" })];
    for (const other of [
      "https://elsewhere.example.com/",
      "http://app.example.com:9443/",
      "https://app.example.com/",
      "https://app.example.com:9444/",
      "javascript:alert(1)",
      "data:text/html,hi",
      "not a url",
      "",
    ])
      expect(referrerDecision(other, acls), other).toEqual({ kind: "ignore", reason: "noMatch" });
    expect(referrerDecision(raw, [])).toEqual({ kind: "ignore", reason: "noMatch" });
    expect(referrerDecision(raw, [at(0, { DisableForUser: true })])).toEqual({ kind: "ignore", reason: "noMatch" });
  });
});

describe("pollDone for a referrer watch", () => {
  it("goes on through Published and AgentOffline and stops once the grant settles", () => {
    for (const status of [2, 3, 5, 6, 8]) expect(pollDone(status, "referrer"), String(status)).toBe(false);
    for (const status of [0, 1, 4, 9, 10]) expect(pollDone(status, "referrer"), String(status)).toBe(true);
  });
});
