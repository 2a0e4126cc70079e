/**
 * SQL of backends, their ACLs' ids and configs, and the agent columns the backend rules read
 * (version, capabilities, box key). No rules here.
 */
import { eq, ne, and } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { acls, agents, backends } from "../db/schema.ts";

type Q = Db | Tx;
/** A backend row. */
export type BackendRow = typeof backends.$inferSelect;
/** The agent columns the backend rules need. */
export type AgentGateRow = Pick<
  typeof agents.$inferSelect,
  "id" | "name" | "version" | "capabilities" | "boxPublicKey"
>;

const agentGateColumns = {
  id: agents.id,
  name: agents.name,
  version: agents.version,
  capabilities: agents.capabilities,
  boxPublicKey: agents.boxPublicKey,
};

/** Lists backends by name. */
export async function listBackends(q: Q): Promise<BackendRow[]> {
  return await q.select().from(backends).orderBy(backends.name).all();
}

/** Reads a backend by id. */
export async function getBackend(q: Q, id: string): Promise<BackendRow | undefined> {
  return await q.select().from(backends).where(eq(backends.id, id)).get();
}

/** True when another backend than `exceptId` has this name. */
export async function backendNameTaken(q: Q, name: string, exceptId?: string): Promise<boolean> {
  const where =
    exceptId === undefined ? eq(backends.name, name) : and(eq(backends.name, name), ne(backends.id, exceptId));
  return (await q.select({ id: backends.id }).from(backends).where(where).get()) !== undefined;
}

/** True when at least one backend exists. */
export async function anyBackend(q: Q): Promise<boolean> {
  return (await q.select({ id: backends.id }).from(backends).limit(1).get()) !== undefined;
}

/** Inserts a backend row. */
export async function insertBackend(q: Q, row: typeof backends.$inferInsert): Promise<void> {
  await q.insert(backends).values(row).run();
}

/** Updates columns of a backend. */
export async function updateBackend(
  q: Q,
  id: string,
  set: Partial<Omit<BackendRow, "id" | "createdAt">>,
): Promise<void> {
  await q.update(backends).set(set).where(eq(backends.id, id)).run();
}

/** Deletes a backend. */
export async function deleteBackend(q: Q, id: string): Promise<void> {
  await q.delete(backends).where(eq(backends.id, id)).run();
}

/** Ids and configs of the ACLs on a backend. */
export async function aclsOfBackend(
  q: Q,
  backendId: string,
): Promise<{ id: string; config: Record<string, unknown> }[]> {
  return await q.select({ id: acls.id, config: acls.config }).from(acls).where(eq(acls.backendId, backendId)).all();
}

/** Replaces an ACL's stored Config. */
export async function setAclConfig(q: Q, aclId: string, config: Record<string, unknown>): Promise<void> {
  await q.update(acls).set({ config }).where(eq(acls.id, aclId)).run();
}

/** True when at least one agent exists. */
export async function anyAgent(q: Q): Promise<boolean> {
  return (await q.select({ id: agents.id }).from(agents).limit(1).get()) !== undefined;
}

/** Reads the gate columns of one agent. */
export async function getAgentGate(q: Q, id: string): Promise<AgentGateRow | undefined> {
  return await q.select(agentGateColumns).from(agents).where(eq(agents.id, id)).get();
}

/** The gate columns of every agent. */
export async function listAgentGates(q: Q): Promise<AgentGateRow[]> {
  return await q.select(agentGateColumns).from(agents).all();
}
