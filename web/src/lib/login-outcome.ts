/**
 * Where a login attempt leads (user-portal §4 "Login outcomes"), from the error body of POST /api/login.
 */

/** The next step after POST /api/login. */
export type LoginOutcome =
  | { kind: "home" }
  | { kind: "totpVerify" }
  | { kind: "totpEnrol" }
  | { kind: "admin" }
  | { kind: "error" };

/**
 * Maps the `Err` of a failed login (undefined for success) to the next step: the two TOTP keys go to
 * the 2FA pages; "Unauthorised" means an admin session (user-portal §4); anything else is an error.
 */
export function loginOutcome(err: string | undefined): LoginOutcome {
  if (err === undefined) return { kind: "home" };
  switch (err) {
    case "err.totpVerificationRequired": return { kind: "totpVerify" };
    case "err.totpEnrolmentRequired": return { kind: "totpEnrol" };
    case "Unauthorised":
    case "err.unauthorised": return { kind: "admin" };
    default: return { kind: "error" };
  }
}
