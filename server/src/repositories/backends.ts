/**
 * SQL of backends, their ACLs' ids and configs, and the agent columns the backend rules read
 * (version, capabilities, box key). No rules here.
 */
import { eq, ne, and } from "drizzle-orm";
import { type Db, type Tx, tablesOf, type Tables } from "../db/index.ts";
import { type agents, type backends } from "../db/schema.ts";

type Q = Db | Tx;
/** A backend row. */
export type BackendRow = typeof backends.$inferSelect;
/** The agent columns the backend rules need. */
export type AgentGateRow = Pick<
  typeof agents.$inferSelect,
  "id" | "name" | "version" | "capabilities" | "boxPublicKey"
>;

const agentGateColumns = ({ agents }: Tables) => ({
  id: agents.id,
  name: agents.name,
  version: agents.version,
  capabilities: agents.capabilities,
  boxPublicKey: agents.boxPublicKey,
});

/** Lists backends by name. */
export async function listBackends(q: Q): Promise<BackendRow[]> {
  const { backends } = tablesOf(q);
  return await q.select().from(backends).orderBy(backends.name);
}

/** Reads a backend by id. */
export async function getBackend(q: Q, id: string): Promise<BackendRow | undefined> {
  const { backends } = tablesOf(q);
  return (await q.select().from(backends).where(eq(backends.id, id)).limit(1))[0];
}

/** True when another backend than `exceptId` has this name. */
export async function backendNameTaken(q: Q, name: string, exceptId?: string): Promise<boolean> {
  const { backends } = tablesOf(q);
  const where =
    exceptId === undefined ? eq(backends.name, name) : and(eq(backends.name, name), ne(backends.id, exceptId));
  return (await q.select({ id: backends.id }).from(backends).where(where).limit(1))[0] !== undefined;
}

/** True when at least one backend exists. */
export async function anyBackend(q: Q): Promise<boolean> {
  const { backends } = tablesOf(q);
  return (await q.select({ id: backends.id }).from(backends).limit(1))[0] !== undefined;
}

/** Inserts a backend row. */
export async function insertBackend(q: Q, row: typeof backends.$inferInsert): Promise<void> {
  const { backends } = tablesOf(q);
  await q.insert(backends).values(row);
}

/** Updates columns of a backend. */
export async function updateBackend(
  q: Q,
  id: string,
  set: Partial<Omit<BackendRow, "id" | "createdAt">>,
): Promise<void> {
  const { backends } = tablesOf(q);
  await q.update(backends).set(set).where(eq(backends.id, id));
}

/** Deletes a backend. */
export async function deleteBackend(q: Q, id: string): Promise<void> {
  const { backends } = tablesOf(q);
  await q.delete(backends).where(eq(backends.id, id));
}

/** Ids and configs of the ACLs on a backend. */
export async function aclsOfBackend(
  q: Q,
  backendId: string,
): Promise<{ id: string; config: Record<string, unknown> }[]> {
  const { acls } = tablesOf(q);
  return await q.select({ id: acls.id, config: acls.config }).from(acls).where(eq(acls.backendId, backendId));
}

/** Replaces an ACL's stored Config. */
export async function setAclConfig(q: Q, aclId: string, config: Record<string, unknown>): Promise<void> {
  const { acls } = tablesOf(q);
  await q.update(acls).set({ config }).where(eq(acls.id, aclId));
}

/** True when at least one agent exists. */
export async function anyAgent(q: Q): Promise<boolean> {
  const { agents } = tablesOf(q);
  return (await q.select({ id: agents.id }).from(agents).limit(1))[0] !== undefined;
}

/** Reads the gate columns of one agent. */
export async function getAgentGate(q: Q, id: string): Promise<AgentGateRow | undefined> {
  const { agents } = tablesOf(q);
  return (
    await q
      .select(agentGateColumns(tablesOf(q)))
      .from(agents)
      .where(eq(agents.id, id))
      .limit(1)
  )[0];
}

/** The gate columns of every agent. */
export async function listAgentGates(q: Q): Promise<AgentGateRow[]> {
  const { agents } = tablesOf(q);
  return await q.select(agentGateColumns(tablesOf(q))).from(agents);
}
