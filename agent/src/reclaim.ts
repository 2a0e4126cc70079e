/**
 * Giving memory back after a full `sync` (issue #13 item 4: the agent's RSS with 100,000 entries ≤ 80 MB;
 * docs/decisions.md "Agent memory after a sync").
 *
 * A full sync of 100,000 entries passes through the agent as an 8 MB frame, its text, the parsed
 * message, zod's copy, per-entry backend commands and answers and a 7 MB `ack`: ~60 MB of heap that
 * is garbage once the `ack` is written. V8 collects it only when its memory reducer decides to, seconds
 * later, and until then the grown heap is resident. The agent therefore runs one full collection right
 * after the `ack` of a `sync` was handed to the socket (never per `apply`: the grant path stays as it
 * was), and after a drift check that listed at least RECLAIM_AFTER_LISTED addresses: its listings live
 * across the check's round trips, so they outlive the young generation and stay as old-space garbage
 * (5–10 MB with 100,000 entries) until a full collection (~30 ms of one core each time here, every
 * drift interval; docs/decisions.md "Agent memory after a sync"). The collection needs `gc`, which node
 * exposes only with `--expose-gc`: packaging/bin/postern-agent sets it; without it (run from source,
 * tests) this does nothing.
 */

/** Addresses a drift check must have listed for the agent to give the listings' memory back after it. */
export const RECLAIM_AFTER_LISTED = 10_000;

/** The `gc` function node installs with `--expose-gc` (V8's GC extension; options since V8 ~9). */
type GcFunction = (options?: {
  type?: "major" | "minor";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => unknown;

/**
 * Runs one full (major, synchronous) garbage collection when node runs with `--expose-gc`; returns
 * how long it took in MILLISECONDS, or null (and does nothing) without that flag. `gc` may be given
 * (tests). Never throws.
 */
export function reclaimMemory(gc: unknown = (globalThis as { gc?: unknown }).gc): number | null {
  if (typeof gc !== "function") return null;
  const started = performance.now();
  try {
    (gc as GcFunction)({ type: "major", execution: "sync", flavor: "last-resort" });
  } catch {
    return null;
  }
  return performance.now() - started;
}
