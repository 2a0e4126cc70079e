/**
 * SQL of agents: the rows, name lookups, enrolment token lookups, the backends attached to an agent,
 * and the columns the agent hub keeps current (last seen, version, capabilities, address). No rules.
 */
import { eq } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type agents } from "../db/schema.ts";

type Q = Db | Tx;
/** An agent row. */
export type AgentRow = typeof agents.$inferSelect;
/** A new agent row. */
export type NewAgentRow = typeof agents.$inferInsert;

/** Lists every agent by name. */
export async function listAgents(q: Q): Promise<AgentRow[]> {
  const { agents } = tablesOf(q);
  return await q.select().from(agents).orderBy(agents.name);
}

/** Reads an agent by id. */
export async function getAgent(q: Q, id: string): Promise<AgentRow | undefined> {
  const { agents } = tablesOf(q);
  return (await q.select().from(agents).where(eq(agents.id, id)).limit(1))[0];
}

/** The id of the agent named `name`, if any. */
export async function agentIdByName(q: Q, name: string): Promise<string | undefined> {
  const { agents } = tablesOf(q);
  return (await q.select({ id: agents.id }).from(agents).where(eq(agents.name, name)).limit(1))[0]?.id;
}

/** The agent whose unspent install token has this SHA-256 (hex). */
export async function agentByTokenHash(q: Q, tokenHash: string): Promise<AgentRow | undefined> {
  const { agents } = tablesOf(q);
  return (await q.select().from(agents).where(eq(agents.tokenHash, tokenHash)).limit(1))[0];
}

/** Inserts an agent row. */
export async function insertAgent(q: Q, row: NewAgentRow): Promise<void> {
  const { agents } = tablesOf(q);
  await q.insert(agents).values(row);
}

/** Changes columns of an agent. */
export async function updateAgent(q: Q, id: string, set: Partial<Omit<AgentRow, "id">>): Promise<void> {
  const { agents } = tablesOf(q);
  await q.update(agents).set(set).where(eq(agents.id, id));
}

/** Deletes an agent row. */
export async function deleteAgent(q: Q, id: string): Promise<void> {
  const { agents } = tablesOf(q);
  await q.delete(agents).where(eq(agents.id, id));
}

/** The backends attached to an agent, as id and name. */
export async function backendsOfAgent(q: Q, agentId: string): Promise<{ ID: string; Name: string }[]> {
  const { backends } = tablesOf(q);
  return await q.select({ ID: backends.id, Name: backends.name }).from(backends).where(eq(backends.agentId, agentId));
}
