import { describe, expect, it } from "vitest";
import type { StatusAcl } from "@postern/shared";
import { favouriteAcls, listOrder, topAcls } from "./dashboard.ts";

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
const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

describe("Favourites", () => {
  it("lists the favourite ACLs in the given order, ignoring unknown ids", () => {
    const a = acl({ Description: "a" });
    const b = acl({ Description: "b" });
    const c = acl({ Description: "c" });
    expect(favouriteAcls([a, b, c], [c.ACLID, "gone", a.ACLID])).toEqual([a, c]);
    expect(favouriteAcls([a, b], [])).toEqual([]);
  });
});

describe("Top (user-portal §2: only above 20 ACLs, the 5 most used)", () => {
  const acls = Array.from({ length: 21 }, (_, i) => acl({ Description: `svc ${String(i).padStart(2, "0")}` }));
  const counts = Object.fromEntries(acls.slice(0, 7).map((a, i) => [a.ACLID, i + 1]));
  it("is empty at 20 ACLs or fewer", () => {
    expect(topAcls(acls.slice(0, 20), 20, counts, 20, 5, collator)).toEqual([]);
  });
  it("shows the 5 most used above 20, most used first, never unused ones", () => {
    const top = topAcls(acls, 21, counts, 20, 5, collator);
    expect(top.map((a) => a.Description)).toEqual(["svc 06", "svc 05", "svc 04", "svc 03", "svc 02"]);
    expect(topAcls(acls, 21, { [acls[3]!.ACLID]: 1 }, 20, 5, collator).map((a) => a.Description)).toEqual(["svc 03"]);
    expect(topAcls(acls, 21, {}, 20, 5, collator)).toEqual([]);
  });
  it("breaks ties by Description and judges the threshold by the total, not the filtered list", () => {
    const tied = { [acls[9]!.ACLID]: 2, [acls[8]!.ACLID]: 2 };
    expect(topAcls([acls[9]!, acls[8]!], 21, tied, 20, 5, collator).map((a) => a.Description)).toEqual([
      "svc 08",
      "svc 09",
    ]);
  });
});

describe("list view order", () => {
  it("sorts by category with Default last, then by Description", () => {
    const rows = listOrder(
      [
        acl({ Category: "Default", Description: "a" }),
        acl({ Category: "Web", Description: "z" }),
        acl({ Category: "DB", Description: "m" }),
        acl({ Category: "Web", Description: "b" }),
      ],
      collator,
    );
    expect(rows.map((r) => `${r.Category}/${r.Description}`)).toEqual(["DB/m", "Web/b", "Web/z", "Default/a"]);
  });
});
