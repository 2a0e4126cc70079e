/**
 * The status JSON made of pieces (status-json.ts) is exactly the text `JSON.stringify` gives for the
 * same `SessionStatus`, keys in the schema's order, for text that needs escaping too.
 */
import { describe, expect, it } from "vitest";
import type { SessionStatus, StatusAcl } from "@postern/shared";
import { aclJson, pushEntry, statusHead, STATUS_END } from "./status-json.ts";

const odd = 'quote " backslash \\ newline \n tab \t nul \u0000 </script> é 😀 \ud800';

function entry(i: number, over: Partial<StatusAcl> = {}): StatusAcl {
  return {
    ID: `0000000${i}-0000-4000-8000-000000000000`,
    ACLID: `1000000${i}-0000-4000-8000-000000000000`,
    ParentID: "00000000-0000-0000-0000-000000000000",
    Description: `ACL ${i} ${odd}`,
    URL: "https://intranet.example/?a=1&b=2",
    Icon: odd,
    Category: "Work",
    Status: i % 7,
    Error: i % 2 ? "err.grantFailed" : "",
    ExpiredAfter: i % 3 ? "2026-11-26T05:00:00.000Z" : "",
    ClickToGrant: i % 2 === 0,
    CGNATOpen: i % 3 === 0,
    HideFromUsers: i % 5 === 0,
    DisableForUser: i % 2 === 1,
    GrantTypeFixedIps: i % 4 === 0,
    AutoBrowseUsers: i % 6 === 0,
    Config: { UriToken: `token ${odd}` },
    ...over,
  };
}

function render(s: SessionStatus): string {
  const { ACLs, ...head } = s;
  const pieces = [statusHead(head)];
  ACLs.forEach((e, i) => pushEntry(pieces, aclJson(e), e, i === 0));
  pieces.push(STATUS_END);
  return pieces.join("");
}

describe("status JSON from pieces", () => {
  const base: SessionStatus = {
    Name: `Alice ${odd}`,
    CurrentAddress: "2001:db8::1",
    Ends: "2026-11-26T05:00:00.000Z",
    ValidUntil: null,
    Licensed: true,
    UserLicensed: false,
    NewUserDashboard: true,
    AuthType: "local",
    AutoBrowseToURI: "",
    ACLs: [],
  };

  it("equals JSON.stringify of the same status, with no entries, one, and many", () => {
    for (const ACLs of [[], [entry(1)], Array.from({ length: 12 }, (_, i) => entry(i))]) {
      const s = { ...base, ACLs };
      expect(render(s)).toBe(JSON.stringify(s));
      expect(JSON.parse(render(s))).toEqual(s);
    }
    const withValidUntil = { ...base, ValidUntil: "2027-01-01T00:00:00.000Z", ACLs: [entry(3)] };
    expect(render(withValidUntil)).toBe(JSON.stringify(withValidUntil));
  });
});
