/**
 * Grant status codes (docs/reference.md user-portal §4, docs/reference.md design "Contract decisions"), one per ACL entry of a session.
 */
export const GrantStatus = {
  Granted: 0,
  GrantError: 1,
  Pending: 2,
  AgentOffline: 3,
  Created: 4,
  Read: 5,
  Published: 6,
  Revoking: 8,
  Revoked: 9,
  RevokedWithError: 10,
} as const;

/** One of the spec's grant status codes. */
export type GrantStatusCode = (typeof GrantStatus)[keyof typeof GrantStatus];

/** Statuses in which a grant is issued (docs/reference.md user-portal §4: 0, 5, 6, 8). */
export const ISSUED_STATUSES: readonly GrantStatusCode[] = [0, 5, 6, 8];
/** Statuses in which an ACL is ready to be granted (4 and 9). */
export const READY_STATUSES: readonly GrantStatusCode[] = [4, 9];
/** Error statuses (1 and 10). */
export const ERROR_STATUSES: readonly GrantStatusCode[] = [1, 10];
/** Statuses at which the browser stops polling after a grant or revoke (1, 3, 4, 6). */
export const POLL_STOP_STATUSES: readonly GrantStatusCode[] = [1, 3, 4, 6];

/** True when the code is one of the grant-issued statuses (0, 5, 6, 8). */
export function isIssued(status: number): boolean {
  return (ISSUED_STATUSES as readonly number[]).includes(status);
}
/** True when the code is grant-ready (4 or 9). */
export function isReady(status: number): boolean {
  return (READY_STATUSES as readonly number[]).includes(status);
}
