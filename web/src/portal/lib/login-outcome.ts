/**
 * Where a login attempt leads (docs/reference.md user-portal §4 "Login outcomes"), from the error body of POST /api/login.
 */

/** The next step after POST /api/login. `admin.path` is the admin console page to open. */
export type LoginOutcome =
  | { kind: "home" }
  | { kind: "totpVerify" }
  | { kind: "totpEnrol" }
  | { kind: "admin"; path: "/admin/otp/verify" | "/admin/otp/onboard" | "/admin/home" }
  | { kind: "error" };

/**
 * Maps the `Err` (and `Extra`) of a failed login (undefined for success) to the next step: the two
 * TOTP keys go to the 2FA pages; "Unauthorised" means the credentials were an admin's and an admin
 * session was started (docs/reference.md user-portal §4): its `Extra` names the TOTP step still owed, which picks
 * admin 2FA, admin onboarding or AdminHome; anything else is an error.
 */
export function loginOutcome(err: string | undefined, extra?: string): LoginOutcome {
  if (err === undefined) return { kind: "home" };
  switch (err) {
    case "err.totpVerificationRequired":
      return { kind: "totpVerify" };
    case "err.totpEnrolmentRequired":
      return { kind: "totpEnrol" };
    case "Unauthorised":
    case "err.unauthorised":
      return {
        kind: "admin",
        path:
          extra === "err.totpVerificationRequired"
            ? "/admin/otp/verify"
            : extra === "err.totpEnrolmentRequired"
              ? "/admin/otp/onboard"
              : "/admin/home",
      };
    default:
      return { kind: "error" };
  }
}

/** True when nothing that takes typing or activation has the focus (docs/reference.md user-portal §2: Enter then starts SSO). */
export function noFieldFocused(active: Element | null, body: Element | null): boolean {
  return active === null || active === body || active.tagName === "HTML";
}
