import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiRequest, createHarness, signInAdmin } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { insertGroup } from "../repositories/groups.ts";
import { conflictOf } from "./conflicts.ts";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => await h.close());

describe("unique names under many writers (issue #12 item 3)", () => {
  it("a write past the name check breaks the unique constraint, which becomes the spec's 409", async () => {
    await insertGroup(h.services.db, { id: "g1", name: "Ops", type: "local" });
    const err = await insertGroup(h.services.db, { id: "g2", name: "Ops", type: "local" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(conflictOf(err)).toMatchObject({ status: 409, err: "A group with that name already exists" });
    // Another constraint (a primary key) is not a name conflict.
    const other = await insertGroup(h.services.db, { id: "g1", name: "Dev", type: "local" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(other).not.toBeNull();
    expect(conflictOf(other)).toBeUndefined();
  });

  it("two admins creating the same group at once: one 201, one 409, one row", async () => {
    const cookie = await signInAdmin(h);
    const body = { Name: "Night shift", Description: "", Type: "local", ACLIDs: [], UserIDs: [] };
    const answers = await Promise.all([
      apiRequest(h, "POST", "/api/admin/groups", body, { cookie }),
      apiRequest(h, "POST", "/api/admin/groups", body, { cookie }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)?.body).toEqual({ Err: "A group with that name already exists" });
    expect((await h.services.groups.list()).filter((g) => g.Name === "Night shift")).toHaveLength(1);
  });
});
