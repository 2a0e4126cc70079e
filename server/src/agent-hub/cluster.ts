/**
 * Replicas sharing their agents (issue #12 item 4; docs/high-availability.md "How replicas share
 * work"). Every replica runs its own hub; an agent is connected to one of them. The cluster is the
 * grant engine's AgentChannel on PostgreSQL: it knows which replica holds which agent and reaches an
 * agent held elsewhere through LISTEN/NOTIFY (db/notifications.ts).
 *
 * - Presence (channel `postern_presence`): a replica announces each agent that connects to it or
 *   leaves it; a starting replica asks, and the others answer with the agents they hold. A replica
 *   whose listening connection is gone (it died) loses its agents here within PRUNE_INTERVAL_MS. When
 *   an agent shows up on another replica, a connection this replica still holds of it is closed as
 *   replaced, and its end does not mark the agent offline.
 * - Changes (channel `postern_agents`): ops for an agent held elsewhere are sent as the (ACL, address)
 *   pairs they touch, to the holding replica, which reads what the database holds for those entries
 *   now (`GrantEngine.currentOps`) and sends that. The notice leaves after the change committed, so
 *   the read sees it, and notices arriving out of order still converge. A resync asks the holder for
 *   a full sync. When its listening connection was lost, a replica resyncs all its agents.
 * - Acting on an agent's connection from the API: deleting an agent sends every replica a notice to
 *   close its connection (whichever holds it, even one whose presence has not arrived yet), so the
 *   agent is cut off at once and refused when it dials again; a rename tells the holder the new name.
 */
import type { Op } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { listen, NOTICE_MAX_BYTES, type Notifications } from "../db/notifications.ts";
import type { Logger } from "../logger.ts";
import type { AgentChannel, GrantEngine } from "../services/grants/engine.ts";
import type { AgentHub } from "./hub.ts";

const PRESENCE = "postern_presence";
const AGENTS = "postern_agents";
/** How often replicas that are gone are looked for, in milliseconds. */
export const PRUNE_INTERVAL_MS = 2_000;

type PresenceNotice =
  | { replica: string; agent: string; connected: boolean }
  | { replica: string; ask: true }
  | { replica: string; holds: string[] };
/** `to` is a replica id, or EVERY_REPLICA. */
type AgentNotice =
  | { to: string; agent: string; entries: [string, string][] }
  | { to: string; agent: string; resync: true }
  | { to: string; agent: string; disconnect: true }
  | { to: string; agent: string; renamed: string };
/** The `to` of a notice every replica acts on. */
const EVERY_REPLICA = "*";

/** Splits `items` into JSON payloads of at most NOTICE_MAX_BYTES, each made by `wrap`. */
function chunked<T>(items: readonly T[], wrap: (part: T[]) => unknown): string[] {
  const out: string[] = [];
  let part: T[] = [];
  for (const item of items) {
    part.push(item);
    if (Buffer.byteLength(JSON.stringify(wrap(part))) > NOTICE_MAX_BYTES && part.length > 1) {
      part.pop();
      out.push(JSON.stringify(wrap(part)));
      part = [item];
    }
  }
  if (part.length > 0) out.push(JSON.stringify(wrap(part)));
  return out;
}

/** The cluster of replicas; see the file comment. Start it with `startCluster`. */
export class ReplicaCluster implements AgentChannel {
  /** Agents held by other replicas: agent id → replica id. */
  private readonly remote = new Map<string, string>();
  /** Per agent, the end of the last change handled for it (changes of one agent run in order). */
  private readonly chains = new Map<string, Promise<void>>();
  private notifications!: Notifications;
  private readonly pruneTimer: NodeJS.Timeout;

  private readonly hub: AgentHub;
  private readonly engine: GrantEngine;
  private readonly log: Logger;
  /** This replica's id (random per start). */
  readonly replicaId: string;

  private constructor(hub: AgentHub, engine: GrantEngine, log: Logger, replicaId: string) {
    this.hub = hub;
    this.engine = engine;
    this.log = log;
    this.replicaId = replicaId;
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  /**
   * Starts listening, attaches the cluster to the engine as its channel and to the hub's presence
   * hooks, and asks the other replicas which agents they hold. Undefined on SQLite.
   */
  static async start(deps: {
    db: Db;
    hub: AgentHub;
    engine: GrantEngine;
    log: Logger;
    replicaId: string;
  }): Promise<ReplicaCluster | undefined> {
    const log = deps.log.child({ part: "cluster" });
    const cluster = new ReplicaCluster(deps.hub, deps.engine, log, deps.replicaId);
    const notifications = await listen(
      deps.db,
      deps.replicaId,
      {
        [PRESENCE]: (p) => cluster.onPresence(p),
        [AGENTS]: (p) => cluster.onAgentNotice(p),
      },
      { log, onReconnect: () => void cluster.afterReconnect() },
    );
    if (!notifications) {
      clearInterval(cluster.pruneTimer);
      return undefined;
    }
    cluster.notifications = notifications;
    deps.engine.attach(cluster);
    deps.hub.onPresence = (agent, connected) =>
      void cluster.publish(PRESENCE, { replica: cluster.replicaId, agent, connected });
    deps.hub.connectedElsewhere = (agent) => cluster.remote.has(agent);
    await cluster.publish(PRESENCE, { replica: cluster.replicaId, ask: true });
    return cluster;
  }

  /** True while this replica or another one holds the agent. */
  isConnected(agentId: string): boolean {
    return this.hub.isConnected(agentId) || this.remote.has(agentId);
  }

  /** Sends ops to the agent here, or their entries to the replica holding it; false when none does. */
  apply(agentId: string, ops: Op[]): boolean {
    if (this.hub.isConnected(agentId)) return this.hub.apply(agentId, ops);
    const holder = this.remote.get(agentId);
    if (!holder) return false;
    const entries = [...new Map(ops.map((o) => [`${o.target.key}\u0000${o.ip}`, [o.target.key, o.ip]])).values()] as [
      string,
      string,
    ][];
    for (const payload of chunked(entries, (part) => ({ to: holder, agent: agentId, entries: part })))
      void this.send(AGENTS, payload);
    return true;
  }

  /** Sends the agent its full desired state, here or through the replica holding it. */
  async resync(agentId: string): Promise<void> {
    if (this.hub.isConnected(agentId)) return await this.hub.resync(agentId);
    const holder = this.remote.get(agentId);
    if (holder) await this.publish(AGENTS, { to: holder, agent: agentId, resync: true });
  }

  /**
   * Closes the agent's connection here and asks every other replica to close theirs (the agent was
   * deleted). Resolves once the notice is sent (a failure to send is logged).
   */
  async disconnect(agentId: string): Promise<void> {
    this.hub.disconnect(agentId);
    await this.publish(AGENTS, { to: EVERY_REPLICA, agent: agentId, disconnect: true });
  }

  /** The agent was renamed: its connection here, or the holder's, takes the new name. */
  async renamed(agentId: string, name: string): Promise<void> {
    if (this.hub.isConnected(agentId)) return this.hub.renamed(agentId, name);
    const holder = this.remote.get(agentId);
    if (holder) await this.publish(AGENTS, { to: holder, agent: agentId, renamed: name });
  }

  /** Stops listening. */
  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.notifications.close();
  }

  private async publish(channel: string, notice: PresenceNotice | AgentNotice): Promise<void> {
    await this.send(channel, JSON.stringify(notice));
  }

  private async send(channel: string, payload: string): Promise<void> {
    try {
      await this.notifications.publish(channel, payload);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, channel }, "could not notify the other replicas");
    }
  }

  private onPresence(payload: string): void {
    const n = JSON.parse(payload) as PresenceNotice;
    if (n.replica === this.replicaId) return;
    if ("ask" in n) {
      const held = [...this.localAgents()];
      for (const p of chunked(held, (part) => ({ replica: this.replicaId, holds: part }))) void this.send(PRESENCE, p);
    } else if ("holds" in n) {
      for (const agent of n.holds) this.remote.set(agent, n.replica);
    } else if (n.connected) {
      this.remote.set(n.agent, n.replica);
      // The agent's newer connection is to another replica: an older one here is stale.
      if (this.hub.isConnected(n.agent)) this.hub.release(n.agent);
    } else if (this.remote.get(n.agent) === n.replica) {
      this.remote.delete(n.agent);
    }
  }

  private onAgentNotice(payload: string): void {
    const n = JSON.parse(payload) as AgentNotice;
    if (n.to !== this.replicaId && n.to !== EVERY_REPLICA) return;
    // Closing and renaming act at once: no change sent before them can still matter to the connection.
    if ("disconnect" in n) return this.hub.disconnect(n.agent);
    if ("renamed" in n) return this.hub.renamed(n.agent, n.renamed);
    const previous = this.chains.get(n.agent) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (!this.hub.isConnected(n.agent)) return;
      if ("resync" in n) return await this.hub.resync(n.agent);
      const ops = await this.engine.currentOps(n.agent, n.entries);
      if (ops.length > 0) this.hub.apply(n.agent, ops);
    });
    const settled = next.catch((err: unknown) =>
      this.log.error({ err, agentId: n.agent }, "could not pass another replica's change to the agent"),
    );
    this.chains.set(n.agent, settled);
    void settled.then(() => {
      if (this.chains.get(n.agent) === settled) this.chains.delete(n.agent);
    });
  }

  /** The agents connected to this replica's hub. */
  private localAgents(): string[] {
    return this.hub.connectedAgentIds();
  }

  /** Forgets the agents of replicas whose listening connection is gone. */
  private async prune(): Promise<void> {
    if (this.remote.size === 0) return;
    try {
      const live = await this.notifications.liveReplicas();
      for (const [agent, replica] of this.remote) if (!live.has(replica)) this.remote.delete(agent);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, "could not list the live replicas");
    }
  }

  /** After the listening connection was lost: notices may be missing, so ask again and resync every agent here. */
  private async afterReconnect(): Promise<void> {
    await this.publish(PRESENCE, { replica: this.replicaId, ask: true });
    for (const agent of this.localAgents()) {
      await this.publish(PRESENCE, { replica: this.replicaId, agent, connected: true });
      await this.hub.resync(agent);
    }
  }
}
