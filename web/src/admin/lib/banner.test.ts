import { describe, expect, it } from "vitest";
import type { AdminStatus, Agent, User } from "@postern/shared";
import { applicableBanners, pickBanner } from "./banner.ts";
import type { BannerInputs } from "./banner.ts";

const status = (over: Partial<AdminStatus> = {}): AdminStatus => ({
  SessionCount: 0,
  ACLCount: 0,
  UserCount: 10,
  Activity: [],
  Cloud: false,
  ServerVersion: "1.2.0",
  AvailableServerVersions: [],
  AvailableAgentVersions: [],
  MinimumRequiredAgentVersion: "1.9.0",
  LatestChangeLogsUrl: "https://example.com/changes",
  ExperimentalFeatures: [],
  Licensing: { UserLimit: 10, UserLimitOverage: 3, UserLimitOveragePercentage: 30, SessionLimit: 5, Expires: null },
  ...over,
});
const agent = (Name: string, Version: string) => ({ Name, Version }) as Agent;
const user = (AuthType: User["AuthType"]) => ({ AuthType }) as User;
const inputs = (over: Partial<BannerInputs> = {}): BannerInputs => ({
  status: status(),
  statusError: undefined,
  agents: [],
  users: [],
  dismissed: new Set(),
  ...over,
});

describe("the global alert banner (admin-console §2, §4)", () => {
  it("lists the alerts that apply in the spec's priority order", () => {
    const all = applicableBanners(
      inputs({
        status: status({
          Licensing: null,
          AvailableServerVersions: [
            { version: "1.3.0", urgency: "low" },
            { version: "1.4.0", urgency: "high" },
          ],
        }),
        statusError: new Error("boom"),
        agents: [agent("edge", "1.8.0"), agent("new", ""), agent("ok", "1.9.0")],
      }),
    );
    expect(all.map((b) => b.kind)).toEqual(["unlicensed", "err", "agentIncompatible", "serverUpdate"]);
    expect(all[2]).toEqual({ kind: "agentIncompatible", required: "1.9.0", agents: ["edge"] });
    expect(all[3]).toMatchObject({ version: "1.4.0", urgency: "high" });
  });

  it("shows the user-limit alert only with SAML users above the limit; blocked at limit plus overage", () => {
    expect(applicableBanners(inputs({ status: status({ UserCount: 11 }), users: [user("local")] }))).toEqual([]);
    expect(applicableBanners(inputs({ status: status({ UserCount: 10 }), users: [user("SAML")] }))).toEqual([]);
    expect(applicableBanners(inputs({ status: status({ UserCount: 11 }), users: [user("SAML")] }))).toEqual([
      { kind: "userLimitExceeded", userCount: 11, limit: 10, remaining: 2, percentage: 30, blocked: false },
    ]);
    expect(applicableBanners(inputs({ status: status({ UserCount: 13 }), users: [user("SAML")] }))[0]).toMatchObject({
      remaining: 0,
      blocked: true,
    });
  });

  it("suppresses server updates for cloud installs, local builds and versions not newer", () => {
    const update = { AvailableServerVersions: [{ version: "2.0.0", urgency: "critical" as const }] };
    expect(applicableBanners(inputs({ status: status({ ...update, Cloud: true }) }))).toEqual([]);
    expect(applicableBanners(inputs({ status: status({ ...update, ServerVersion: "dev" }) }))).toEqual([]);
    expect(applicableBanners(inputs({ status: status({ ...update, ServerVersion: "2.0.0" }) }))).toEqual([]);
    expect(applicableBanners(inputs({ status: status(update) }))[0]).toEqual({
      kind: "serverUpdate",
      version: "2.0.0",
      urgency: "critical",
      link: "https://example.com/changes",
    });
  });

  it("shows the first alert not dismissed", () => {
    const both = inputs({ status: status({ Licensing: null }), statusError: new Error("x") });
    expect(pickBanner(both)?.kind).toBe("unlicensed");
    expect(pickBanner({ ...both, dismissed: new Set(["unlicensed"]) })?.kind).toBe("err");
    expect(pickBanner({ ...both, dismissed: new Set(["unlicensed", "err"]) })).toBeUndefined();
  });
});
