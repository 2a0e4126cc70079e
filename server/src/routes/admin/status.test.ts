import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MINIMUM_REQUIRED_AGENT_VERSION } from "@postern/shared";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";

let h: Harness;
let admin = "";

beforeEach(async () => {
  h = await createHarness();
  await seedLoop(h, { licence: false });
  admin = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

describe("GET /admin/status", () => {
  it("counts sessions, ACLs and users, shows recent activity newest first, versions and licensing", async () => {
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    const r = await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie: admin });
    expect(r.status).toBe(200);
    const body = r.body as {
      SessionCount: number;
      ACLCount: number;
      UserCount: number;
      Activity: { Entry: { Action: string } }[];
      MinimumRequiredAgentVersion: string;
      Cloud: boolean;
      Licensing: unknown;
      ServerVersion: string;
    };
    expect(body).toMatchObject({
      SessionCount: 1,
      ACLCount: 1,
      UserCount: 1,
      Cloud: false,
      MinimumRequiredAgentVersion: MINIMUM_REQUIRED_AGENT_VERSION,
      Licensing: null,
    });
    expect(body.ServerVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.Activity[0]?.Entry.Action).toBe("userLoggedIn");
    expect(body.Activity[1]?.Entry.Action).toBe("adminLoggedIn");
    expect(body.Activity.length).toBeLessThanOrEqual(10);
  });

  it("reports the installed licence", async () => {
    const installed = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/license",
      { License: "free" },
      { cookie: admin },
    );
    expect(installed.status).toBe(200);
    const r = await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie: admin });
    expect((r.body as { Licensing: unknown }).Licensing).toMatchObject({ UserLimit: 1 });
  });
});
