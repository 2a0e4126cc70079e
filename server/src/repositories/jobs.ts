/**
 * Work that must run once across replicas (issue #12 item 4: the expiry sweep, the webhook and GELF
 * senders): a transaction claims a job by name before doing it. On PostgreSQL the claim is a
 * transaction-scoped advisory lock (`pg_try_advisory_xact_lock`), released when the transaction ends,
 * so a replica finding the job claimed skips this round; SQLite has one server, which always claims.
 */
import { sql } from "drizzle-orm";
import { dialectOf, scalar, type Tx } from "../db/index.ts";

/**
 * Claims the job `name` for the rest of the transaction `tx`: true when this replica does it now,
 * false when another replica's transaction holds it (then skip the round).
 */
export async function claimJob(tx: Tx, name: string): Promise<boolean> {
  if (dialectOf(tx) !== "postgres") return true;
  return (await scalar<boolean>(tx, sql`select pg_try_advisory_xact_lock(hashtext(${`postern:${name}`}))`)) === true;
}
