/**
 * Refetch intervals and cache lifetimes of the admin console, written once (docs/reference.md admin-console §4
 * "Data caches", §9 "Polling"): header status and agents every 180 s; admin home status every
 * 30 s; the agents page every 5 s; the users list every 30 s; admin lists cached 3 minutes;
 * everything else 300 s.
 */

/** How often a query is asked again while its page is open, in ms. */
export const RefetchMs = {
  headerStatus: 180_000,
  headerAgents: 180_000,
  homeStatus: 30_000,
  agentsPage: 5_000,
  usersList: 30_000,
  /** The approvals page: new requests appear while an approver watches (docs/decisions.md "Approval requests"). */
  approvals: 5_000,
} as const;

/** How long an answer counts as fresh, in ms. */
export const StaleMs = {
  /** Admin lists (agents, backends, ACLs, groups, users, admins, API keys, logs). */
  adminList: 180_000,
  /** The header status (banner, guard). */
  headerStatus: 180_000,
  /** Everything else. */
  default: 300_000,
} as const;
