/**
 * The status read keeps the ACLs' unchanging parts between reads (issue #13 item 2): every write to
 * an ACL, by any path, shows in the next read — an admin's update, a config written by another
 * repository without touching updated_at, a new ACL assigned, a deleted one — because a trigger
 * raises the `acls` change counter the cache is keyed on.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, seedLoop } from "../testing/harness.ts";
import type { Harness, Seeded } from "../testing/harness.ts";
import { setAclConfig } from "../repositories/backends.ts";
import { getAcl } from "../repositories/acls.ts";
import type { UserSessionContext } from "./auth/user-sessions.ts";

describe("status read with the ACLs kept ready", () => {
  let h: Harness;
  let seed: Seeded;
  let session: UserSessionContext;
  const actor = { adminName: "root", ip: "127.0.0.1" };
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedLoop(h);
    session = (
      await h.services.userSessions.login({
        userName: "alice",
        password: "alice-password",
        kiosk: false,
        ip: "203.0.113.9",
      })
    ).session;
  });
  afterEach(async () => {
    await h.close();
  });

  const read = async () => (await h.services.status.status(session)).ACLs;

  it("shows every change to an ACL in the next read, whatever wrote it", async () => {
    expect((await read()).map((a) => a.Description)).toEqual(["Intranet"]);
    const acl = await h.services.acls.get(seed.aclId);
    await h.services.acls.update(seed.aclId, { ...acl, Description: "Intranet 2", Category: "Work" }, actor);
    expect(await read()).toMatchObject([{ Description: "Intranet 2", Category: "Work" }]);

    // A write that leaves updated_at alone (a repository of another resource) is seen too.
    const row = (await getAcl(h.services.db, seed.aclId))!;
    await setAclConfig(h.services.db, seed.aclId, { ...row.config, UriToken: "fresh-token" });
    expect((await read())[0]!.Config.UriToken).toBe("fresh-token");
  });

  it("shows an ACL assigned after the first read, sorted by Description, and drops a deleted one", async () => {
    expect(await read()).toHaveLength(1);
    const acl = await h.services.acls.get(seed.aclId);
    const second = await h.services.acls.create(
      { ...acl, Description: "Alpha wiki", Config: { UriToken: "", haproxy: { ID: 2 } } },
      actor,
    );
    const user = await h.services.users.get(seed.userId);
    await h.services.users.update(seed.userId, { ...user, AclIds: [seed.aclId, second] }, actor);
    expect((await read()).map((a) => a.Description)).toEqual(["Alpha wiki", "Intranet"]);
    await h.services.acls.delete(second, actor);
    expect((await read()).map((a) => a.Description)).toEqual(["Intranet"]);
  });
});
