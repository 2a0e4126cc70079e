/**
 * The public allowlists kept ready (issue #13 item 3; docs/reference.md admin-console §7 "Public allowlist"): each
 * allowlist ACL's text and JSON bodies and their ETag are built once and served again until the
 * database is written (any write: grants, sessions, ACLs, cascades; see repositories/grants.ts
 * `writeMark`) or the first published address expires. A poller asking every few seconds of an
 * unchanged list costs one counter read, and with `If-None-Match` gets a 304 (routes/v1/allowlists.ts).
 *
 * The ETag is a hash of the addresses, so a list rebuilt after an unrelated write keeps its ETag
 * and still answers 304.
 */
import { createHash } from "node:crypto";
import type { Db } from "../db/index.ts";
import type { Clock } from "../clock.ts";
import { publishedAllowlist, writeMark } from "../repositories/grants.ts";

/** One allowlist as it is sent: both bodies and their strong ETag (quoted). */
export interface AllowlistBodies {
  /** One address per line, each line ending in a newline; "" for none. */
  readonly text: string;
  /** A JSON array of the address strings. */
  readonly json: string;
  /** `"<base64url SHA-256 of the addresses>"`, the same for both formats' content. */
  readonly etag: string;
  readonly count: number;
}

interface Entry {
  bodies: AllowlistBodies;
  /** The write count when it was built. */
  writes: string;
  /** Epoch ms when its first address expires (Infinity when none). */
  until: number;
}

/** How many allowlists are kept at once; the least recently built beyond it are dropped. */
const MAX_KEPT = 1_000;

/** The allowlist bodies per ACL, rebuilt only when the database changed or an address expired. */
export class AllowlistCache {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly kept = new Map<string, Entry>();
  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The bodies of allowlist ACL `aclId` (which the caller has authorised) as of now. */
  async read(aclId: string): Promise<AllowlistBodies> {
    const now = this.clock.now();
    const writes = await writeMark(this.db);
    const kept = this.kept.get(aclId);
    if (kept && kept.writes === writes && now < kept.until) return kept.bodies;
    const { addresses, nextExpiry } = await publishedAllowlist(this.db, aclId, now);
    const bodies = build(addresses, kept?.bodies);
    this.kept.delete(aclId);
    this.kept.set(aclId, { bodies, writes, until: nextExpiry ?? Number.POSITIVE_INFINITY });
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    return bodies;
  }
}

/** The bodies of `addresses`; the previous ones again when the content is the same. */
function build(addresses: readonly string[], previous: AllowlistBodies | undefined): AllowlistBodies {
  const text = addresses.length === 0 ? "" : addresses.join("\n") + "\n";
  const etag = `"${createHash("sha256").update(text).digest("base64url")}"`;
  if (previous?.etag === etag) return previous;
  return { text, json: JSON.stringify(addresses), etag, count: addresses.length };
}
