/**
 * PostgreSQL's LISTEN/NOTIFY between the replicas of one Postern (issue #12 item 4;
 * docs/high-availability.md). Each replica keeps one connection of its own (not from the pool) that
 * LISTENs on the channels it serves, named `postern-replica-<id>` in `pg_stat_activity`, which is how
 * the others tell it is alive. Notices are published on the pool with `pg_notify` (inside a transaction
 * they leave at its commit). A dropped listening connection is opened again after a second;
 * `onReconnect` is then told, since notices sent meanwhile are lost.
 */
import pg from "pg";
import type { Logger } from "../logger.ts";
import { dialectOf, type Db } from "./index.ts";
import type { PgDb } from "./postgres.ts";

/** Most bytes of one notice's payload (PostgreSQL's limit is 8000). */
export const NOTICE_MAX_BYTES = 7_900;

/** The prefix of the listening connections' application_name. */
const LISTENER_PREFIX = "postern-replica-";

/** An open set of channels of one replica. */
export interface Notifications {
  /** This replica's id (its listening connection is `postern-replica-<id>`). */
  readonly replicaId: string;
  /** Sends `payload` (at most NOTICE_MAX_BYTES bytes) on `channel` to every listening replica, this one included. */
  publish(channel: string, payload: string): Promise<void>;
  /** The ids of the replicas whose listening connection to this database is open now. */
  liveReplicas(): Promise<Set<string>>;
  /** Stops listening and closes the connection. */
  close(): Promise<void>;
}

/**
 * Listens on the channels of `handlers` (each called with a notice's payload, in arrival order) for
 * the replica `replicaId`; undefined on SQLite, which has no replicas.
 * @throws the driver's error when the first connection fails.
 */
export async function listen(
  db: Db,
  replicaId: string,
  handlers: Readonly<Record<string, (payload: string) => void>>,
  opts: { log: Logger; onReconnect?: () => void },
): Promise<Notifications | undefined> {
  if (dialectOf(db) !== "postgres") return undefined;
  const pool = (db as unknown as PgDb).$client;
  const connectionString = (pool.options as { connectionString?: string }).connectionString;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const open = async (): Promise<void> => {
    const c = new pg.Client({ connectionString, application_name: `${LISTENER_PREFIX}${replicaId}` });
    c.on("notification", (n) => handlers[n.channel]?.(n.payload ?? ""));
    c.on("error", (err) => opts.log.warn({ err: err.message }, "replica notifications: connection error"));
    c.on("end", () => {
      if (closed || client !== c) return;
      client = undefined;
      opts.log.warn("replica notifications: connection lost; opening it again in 1 s");
      const again = (): void => {
        retry = setTimeout(() => {
          open().then(
            () => opts.onReconnect?.(),
            (err: unknown) => {
              opts.log.warn({ err: (err as Error).message }, "replica notifications: reconnect failed");
              again();
            },
          );
        }, 1_000);
        retry.unref();
      };
      again();
    });
    await c.connect();
    for (const channel of Object.keys(handlers)) await c.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    client = c;
  };
  await open();
  return {
    replicaId,
    async publish(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async liveReplicas() {
      const r = await pool.query<{ name: string }>(
        "SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1",
        [`${LISTENER_PREFIX}%`],
      );
      return new Set(r.rows.map((row) => row.name.slice(LISTENER_PREFIX.length)));
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
