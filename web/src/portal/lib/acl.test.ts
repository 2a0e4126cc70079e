import { describe, expect, it } from "vitest";
import type { StatusAcl } from "@postern/shared";
import {
  aclAction,
  autoBrowseTarget,
  badgeKind,
  groupByCategory,
  isLinkableUrl,
  linkLabel,
  matchesSearch,
  pollDelayMs,
  pollDone,
  visibleAcls,
} from "./acl.ts";

const now = Date.parse("2026-01-01T00:00:00Z");
const future = "2026-01-01T01:00:00Z";
const past = "2025-12-31T23:00:00Z";
let n = 0;
function acl(over: Partial<StatusAcl>): StatusAcl {
  n += 1;
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  return {
    ID: id,
    ACLID: id,
    ParentID: "00000000-0000-0000-0000-000000000000",
    Description: `ACL ${n}`,
    URL: "",
    Icon: "",
    Category: "Default",
    Status: 4,
    Error: "",
    ExpiredAfter: "",
    ClickToGrant: true,
    CGNATOpen: false,
    HideFromUsers: false,
    DisableForUser: false,
    GrantTypeFixedIps: false,
    AutoBrowseUsers: false,
    Config: { UriToken: "" },
    ...over,
  };
}

describe("aclAction (button label, user-portal §4)", () => {
  it("offers revoke for issued statuses 0, 5, 6, 8", () => {
    for (const Status of [0, 5, 6, 8]) expect(aclAction({ Status, ExpiredAfter: "" }, now)).toBe("revoke");
  });
  it("offers revoke whenever the expiry lies in the future", () => {
    expect(aclAction({ Status: 9, ExpiredAfter: future }, now)).toBe("revoke");
    expect(aclAction({ Status: 9, ExpiredAfter: past }, now)).toBe("grant");
  });
  it("offers grant when ready (4, 9) and after errors (1, 10)", () => {
    for (const Status of [4, 9, 1, 10]) expect(aclAction({ Status, ExpiredAfter: "" }, now)).toBe("grant");
  });
  it("is pending at 2, and revoke (withdraw) while the agent is offline (3)", () => {
    expect(aclAction({ Status: 2, ExpiredAfter: "" }, now)).toBe("pending");
    expect(aclAction({ Status: 3, ExpiredAfter: "" }, now)).toBe("revoke");
  });
  it("offers to withdraw a request waiting for an approver (2 with ApprovalState pending), and only that", () => {
    expect(aclAction({ Status: 2, ExpiredAfter: "", ApprovalState: "pending" }, now)).toBe("withdraw");
    expect(aclAction({ Status: 2, ExpiredAfter: "", ApprovalState: "denied" }, now)).toBe("pending");
    expect(aclAction({ Status: 0, ExpiredAfter: future, ApprovalState: "approved" }, now)).toBe("revoke");
  });
});

describe("badgeKind", () => {
  it("maps every spec status code", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 7].map(badgeKind)).toEqual([
      "granted",
      "error",
      "pending",
      "offline",
      "ready",
      "applying",
      "published",
      "revoking",
      "ready",
      "revokeError",
      "unknown",
    ]);
  });
});

describe("polling after grant or revoke", () => {
  it("waits 1 s first, then grows to an 8 s cap", () => {
    expect([0, 1, 2, 3, 4, 10].map((a) => pollDelayMs(a))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });
  it("stops at 1, 3, 4, 6 and at the goal of the action", () => {
    for (const s of [1, 3, 4, 6]) {
      expect(pollDone(s, "grant")).toBe(true);
      expect(pollDone(s, "revoke")).toBe(true);
    }
    expect(pollDone(0, "grant")).toBe(true);
    expect(pollDone(9, "revoke")).toBe(true);
    expect(pollDone(0, "revoke")).toBe(false);
    expect(pollDone(9, "grant")).toBe(false);
    expect(pollDone(2, "grant")).toBe(false);
    expect(pollDone(5, "grant")).toBe(false);
    expect(pollDone(8, "revoke")).toBe(false);
  });
});

describe("grouping and filtering", () => {
  const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });
  it("sorts categories by name with Default (and empty) last, ACLs by description", () => {
    const groups = groupByCategory(
      [
        acl({ Category: "Default", Description: "zeta" }),
        acl({ Category: "Web", Description: "b" }),
        acl({ Category: "", Description: "alpha" }),
        acl({ Category: "Databases", Description: "c" }),
        acl({ Category: "Web", Description: "A" }),
      ],
      collator,
    );
    expect(groups.map((g) => [g.category, g.isDefault, g.acls.map((a) => a.Description)])).toEqual([
      ["Databases", false, ["c"]],
      ["Web", false, ["A", "b"]],
      ["Default", true, ["alpha", "zeta"]],
    ]);
  });
  it("hides HideFromUsers and matches search on description, category and URL", () => {
    const shown = acl({ Description: "Grafana", Category: "Monitoring", URL: "https://grafana.example.com" });
    expect(visibleAcls([shown, acl({ HideFromUsers: true })])).toEqual([shown]);
    expect(matchesSearch(shown, "graf")).toBe(true);
    expect(matchesSearch(shown, "MONITOR")).toBe(true);
    expect(matchesSearch(shown, "example.com")).toBe(true);
    expect(matchesSearch(shown, "ssh")).toBe(false);
    expect(matchesSearch(shown, "  ")).toBe(true);
  });
});

describe("URLs", () => {
  it("links safe schemes only", () => {
    expect(isLinkableUrl("https://a.example")).toBe(true);
    expect(isLinkableUrl("ssh://bastion.example")).toBe(true);
    expect(isLinkableUrl("javascript:alert(1)")).toBe(false);
    expect(isLinkableUrl("data:text/html,x")).toBe(false);
    expect(isLinkableUrl("not a url")).toBe(false);
    expect(linkLabel("https://rdp.example.com:8443/gw")).toBe("rdp.example.com:8443");
  });
  it("auto-browses only when exactly one visible ACL asks for it with an http(s) URL", () => {
    const one = acl({ AutoBrowseUsers: true, URL: "https://app.example" });
    expect(autoBrowseTarget([one, acl({})])).toBe("https://app.example");
    expect(autoBrowseTarget([one, acl({ AutoBrowseUsers: true, URL: "https://b.example" })])).toBeUndefined();
    expect(autoBrowseTarget([acl({ AutoBrowseUsers: true, URL: "ssh://x.example" })])).toBeUndefined();
    expect(
      autoBrowseTarget([acl({ AutoBrowseUsers: true, URL: "https://h.example", HideFromUsers: true })]),
    ).toBeUndefined();
  });
});
