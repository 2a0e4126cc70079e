/**
 * The kept licence cut-off answers exactly as gates.ts `userLicence` (which counts on every call)
 * for every user, through users added, deleted and a smaller or larger limit, with no licence, and
 * with an expired one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { licenseHarness, unlicenseHarness } from "../../testing/licences.ts";
import { userLicence } from "./gates.ts";
import { UserLicenceCache } from "./user-licence-cache.ts";

describe("UserLicenceCache", () => {
  let h: Harness;
  const actor = { adminName: "root", ip: "127.0.0.1" };
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  async function addUser(n: number): Promise<string> {
    h.clock.advance(n % 3 === 0 ? 0 : 1); // some users share a CreatedAt: the ID breaks the tie
    return h.services.users.create(
      {
        Name: `U${n}`,
        UserName: `u${n}`,
        Company: "",
        Duration: 60,
        SessionLimit: null,
        AuthType: "local",
        PlainPassword: "user-password-1",
        ConfirmPassword: "user-password-1",
        TOTPEnabled: false,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [],
      },
      actor,
    );
  }

  it("agrees with the counting gate through every change", async () => {
    const cache = new UserLicenceCache(h.services.db);
    const ids: string[] = [];
    const agree = async () => {
      const now = h.clock.now();
      for (const id of [...ids, "no-such-user"])
        expect(await cache.userLicence(id, now), id).toEqual(await userLicence(h.services.db, id, now));
    };
    await agree(); // no licence
    for (let i = 0; i < 7; i++) ids.push(await addUser(i));
    await agree();
    await licenseHarness(h, { UserLimit: 4, UserLimitOverage: 0 });
    await agree();
    const licensed = [];
    for (const id of ids) if ((await cache.userLicence(id, h.clock.now())).licensed) licensed.push(id);
    expect(licensed).toHaveLength(4);
    // Deleting a licensed user moves the next one in.
    await h.services.users.delete(ids[1]!, actor);
    ids.splice(1, 1);
    await agree();
    expect((await cache.userLicence(ids[3]!, h.clock.now())).licensed).toBe(true);
    await licenseHarness(h, { UserLimit: 2, UserLimitOverage: 50 }); // 3 allowed
    await agree();
    await licenseHarness(h, { UserLimit: 100 });
    await agree();
    await licenseHarness(h, { UserLimit: 3, Expires: new Date(h.clock.now() + 1000).toISOString() });
    await agree();
    h.clock.advance(2000);
    await agree();
    expect(await cache.userLicence(ids[0]!, h.clock.now())).toEqual({ admitted: false, licensed: false });
    await unlicenseHarness(h);
    await agree();
  });
});
