/**
 * The error catalogue: every error the server sends, written once (docs/reference.md user-portal §8, docs/reference.md admin-console §8).
 *
 * Every error body is `{ Err, Extra? }`. `Err` is a translation key (`err.*`) or one of the spec's
 * plain server messages; `Extra` is appended after a colon by the browser and translated when it
 * starts with `err.`. Each entry carries the `Err` value and the HTTP status it is sent with; the
 * server throws only these entries (`new AppError(Errors.x, extra?)`) and turns them into a response
 * in one place. The browser's translations are typed against `ErrValue`, so an entry without a
 * translation fails the type check.
 *
 * This module imports nothing, so the browser can import it without bundling zod.
 */

/** HTTP statuses the API uses for errors (docs/reference.md design "Contract decisions"). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503;

/** One entry of the catalogue: the `Err` value sent and the HTTP status it is sent with. */
export interface ErrorEntry<E extends string = string> {
  readonly err: E;
  readonly status: ErrorStatus;
}

const entry = <const E extends string>(err: E, status: ErrorStatus): ErrorEntry<E> => ({ err, status });

/**
 * The catalogue, grouped by status. Names are camelCase; `err.*` keys keep their spec name. Two entries
 * may share an `Err` value when the spec sends the same text with two statuses (e.g. "Invalid
 * credentials": 401 at sign-in, 403 for a wrong current password).
 */
export const Errors = {
  // 400: the request is wrong and changed nothing.
  badRequest: entry("Bad request", 400),
  failedDecodingRequestBody: entry("Failed decoding request body", 400),
  invalidMaximumGrantDuration: entry("The maximum grant duration for the ACL is invalid", 400),
  mismatchingIds: entry("Mismatching IDs", 400),
  cannotChangeBackendType: entry("Cannot change backend type", 400),
  cannotChangeUsername: entry("Cannot change username", 400),
  cannotChangeGroupType: entry("Cannot change group type", 400),
  mustSpecifyUsername: entry("You must specify a username", 400),
  createAgentBeforeBackend: entry("Create an agent before creating a backend", 400),
  createAllowlistFirst: entry("You must create an allowlist before you can create an API key", 400),
  /** A PUT changed something other than AllowedFrom; Extra names the field. */
  onlyAllowedFromEditable: entry("Only the allowed-from list of an API key can be changed", 400),
  invalidAclName: entry("Invalid ACL name", 400),
  invalidIpAddress: entry("Invalid IP address", 400),
  /** docs/reference.md admin-console §5: Fortinet Url, script webhook URL, the panos ACL URL, SAML metadata URLs, PublicURL, DiscoverIPURL. */
  urlMustBeHttp: entry("URL must be http or https", 400),
  /** docs/reference.md admin-console §5 Settings: the LDAP URL (ldap, ldaps, ldapi or cldap). */
  urlMustBeLdap: entry("URL must be ldap or ldaps", 400),
  /** docs/reference.md admin-console §5 Settings: the GELF listener URL. */
  urlMustBeGelf: entry("URL must be udp, tcp, or tls", 400),
  /** docs/reference.md admin-console §5 "SAML users cannot be edited": PUT /admin/users/{id} of a SAML user. */
  samlUsersCannotBeEdited: entry("SAML users cannot be edited: the identity provider manages them", 400),
  invalidScriptCommand: entry("Command must be the full path of an executable or an http or https webhook URL", 400),
  /** Secrets are sealed to the agent: a new agent cannot open the old ones. Extra lists the fields. */
  reenterSecretsForNewAgent: entry("Changing the agent requires re-entering the backend's secrets", 400),
  /** docs/reference.md admin-console §5 and §4: a new Url/Hostname needs the credentials again. Extra lists the fields. */
  reenterCredentials: entry("Changing the URI or hostname requires re-entering credentials", 400),
  /** The new password scores below MIN_PASSWORD_SCORE; Extra carries the estimator's hint. */
  passwordTooWeak: entry("Password is too weak", 400),
  /** The key is not `payload.signature` in base64url, or the payload is not a licence. */
  invalidLicenseKey: entry("err.invalidLicenseKey", 400),
  /** The signature does not verify under any trusted public key. */
  invalidLicenseSignature: entry("err.invalidLicenseSignature", 400),
  /** The licence's Expires lies in the past; installing it would unlicense the server. */
  licenseExpired: entry("err.licenseExpired", 400),
  invalidCidr: entry("err.invalidCidr", 400),
  passwordsDontMatch: entry("err.passwordsDontMatch", 400),
  allowlistAccessIpRestrictionFormRequired: entry("err.allowlistAccessIpRestrictionFormRequired", 400),
  repeatedEnvVarNames: entry("err.repeatedEnvVarNames", 400),
  emptyEnvVarName: entry("err.emptyEnvVarName", 400),
  invalidEnvVarName: entry("err.invalidEnvVarName", 400),
  backendTypeNoAgents: entry("err.backendTypeNoAgents", 400),
  agentBackendTypeNotSupported: entry("err.agentBackendTypeNotSupported", 400),
  agentNeverConnected: entry("err.agentNeverConnected", 400),
  ipsetNoCommand: entry("err.ipsetNoCommand", 400),
  ipsetNoSudo: entry("err.ipsetNoSudo", 400),
  agentIncapable: entry("err.agentIncapable", 400),
  invalidAgentId: entry("err.invalidAgentId", 400),
  invalidFortiosConfig: entry("err.invalidFortiosConfig", 400),
  noBackendSelected: entry("err.noBackendSelected", 400),
  createBackendBeforeACL: entry("err.createBackendBeforeACL", 400),
  aclIdRequired: entry("err.aclIdRequired", 400),
  aclIdMustBeNumber: entry("err.aclIdMustBeNumber", 400),
  aclNameRequired: entry("err.aclNameRequired", 400),
  /** docs/reference.md admin-console §5 script and ipset names (the key); fortios/fortimanager use "Invalid ACL name". */
  invalidAclNameKey: entry("err.invalidAclName", 400),
  invalidKnocproxyAclName: entry("err.invalidKnocproxyAclName", 400),
  ipsetNameRequired: entry("err.ipsetNameRequired", 400),
  /** An ACL's ApprovalTimeout is not whole seconds from 5 s to 7 days (api/approval.ts). */
  invalidApprovalTimeout: entry("err.invalidApprovalTimeout", 400),
  /** An ACL's ApproverGroupIDs names a group that does not exist (Extra: the id). */
  unknownApproverGroup: entry("err.unknownApproverGroup", 400),
  /** An approval's Minutes is not a whole number from 1 to 40320. */
  invalidApprovalMinutes: entry("err.invalidApprovalMinutes", 400),
  /** A denial without a reason. */
  denyReasonRequired: entry("err.denyReasonRequired", 400),
  /** A request's or a denial's reason is longer than 500 characters. */
  approvalReasonTooLong: entry("err.approvalReasonTooLong", 400),

  // 401: no usable session or credentials.
  invalidSession: entry("err.invalidSession", 401),
  invalidCredentials: entry("Invalid credentials", 401),
  /** The code is wrong, malformed, outside ±1 time step, or its time step was used before. */
  invalidCode: entry("Invalid code", 401),
  /** The user login was used with an admin's account (docs/reference.md user-portal §4: "Unauthorised" means an admin). */
  adminOnUserLogin: entry("err.unauthorised", 401),
  /** An API key that is malformed, unknown, wrong or expired. */
  unauthenticated: entry("Unauthorised", 401),
  /** The session still owes its TOTP code (docs/reference.md user-portal §4). */
  totpVerificationRequired: entry("err.totpVerificationRequired", 401),
  /** The session must enrol a TOTP secret first (docs/reference.md user-portal §4). */
  totpEnrolmentRequired: entry("err.totpEnrolmentRequired", 401),
  /** A passkey answer was refused: no or an expired challenge, an unknown credential, a bad signature or counter. */
  passkeyRefused: entry("Passkey not accepted", 401),

  // 403: understood and refused.
  unauthorised: entry("Unauthorised", 403),
  accountDisabled: entry("accountDisabled", 403),
  loginNotPermitted: entry("Login not permitted", 403),
  unlicensedDescription: entry("err.unlicensedDescription", 403),
  youDoNotHaveALicense: entry("err.youDoNotHaveALicense", 403),
  userLimitReached: entry("err.userLimitReached", 403),
  /** Creating an agent beyond the licence's MaxMachines (Extra names the limit). */
  machineLimitReached: entry("err.machineLimitReached", 403),
  cannotResetOwn2fa: entry("cannotResetOwn2fa", 403),
  cannotDisableOwn2fa: entry("cannotDisableOwn2fa", 403),
  cannotDeleteOwnAccount: entry("You cannot delete your own account", 403),
  cannotDisableOwnLogin: entry("You cannot disable your own login", 403),
  /** The server does not allow admins to defer their 2FA enrolment (AllowAdminTotpDeferral). */
  deferralNotAllowed: entry("2FA enrolment cannot be deferred", 403),
  /** The account's password is not Postern's (SAML, LDAP, API-key accounts). */
  cannotChangePassword: entry("Cannot change password", 403),
  /** The current password given to change a password is wrong. */
  wrongCurrentPassword: entry("Invalid credentials", 403),
  /** The IdP's answer was refused (signature, audience, recipient, InResponseTo, time, replay). */
  authenticationFailed: entry("Authentication failed", 403),
  /** SAML and API-key accounts have no passkeys (their second factor is not Postern's). */
  passkeysNotAvailable: entry("Passkeys are not available for this account", 403),
  /** An approver tried to decide their own approval request. */
  cannotApproveOwnRequest: entry("err.cannotApproveOwnRequest", 403),

  // 404
  notFound: entry("Not found", 404),
  /** SAML is not configured for this audience (no usable IdP metadata, no PublicURL, ...). */
  samlNotConfigured: entry("SAML not configured", 404),

  // 409: conflicts with what exists.
  agentNameExists: entry("An agent with that name already exists", 409),
  groupNameExists: entry("A group with that name already exists", 409),
  apiKeyNameExists: entry("An API key with that name already exists", 409),
  backendNameExists: entry("A backend with that name already exists", 409),
  userNameExists: entry("A user with that username already exists", 409),
  adminNameExists: entry("An admin with that username already exists", 409),
  detachBackendsFirst: entry("Please detach all backends from this agent before deleting it", 409),
  backendInUse: entry("Delete the ACLs of this backend before deleting it", 409),
  /** The session already completed its sign-in (its 2FA is done, or it never owed a code). */
  alreadyVerified2fa: entry("Already verified 2FA", 409),
  /** The account already has an enrolled secret (generate, or an admin's deferral, refused). */
  userAlreadyVerified: entry("User already verified", 409),
  /** The passkey being enrolled is already enrolled (on this or another account). */
  passkeyExists: entry("This passkey is already registered", 409),
  /** The approval request was already decided, expired or withdrawn. */
  approvalNotPending: entry("err.approvalNotPending", 409),

  // 413
  bodyTooLarge: entry("Bad request", 413),

  // 429
  tooManyRequests: entry("Too many requests. Please try again in...", 429),

  // 500
  internalServerError: entry("Internal server error", 500),
  /** The installed licence cannot be read: the store holds none parsable, or not exactly one. */
  failedToRefreshLicenseStatus: entry("err.failedToRefreshLicenseStatus", 500),
} as const satisfies Record<string, ErrorEntry>;

/** The name of a catalogue entry. */
export type ErrorName = keyof typeof Errors;

/** Any `Err` value the server may send. */
export type ErrValue = (typeof Errors)[ErrorName]["err"];

/**
 * The 400 entries by `Err` value: a validation rule (a zod schema's message) whose message is one of
 * these is answered with that entry, any other message as "Bad request" with the message as `Extra`.
 */
export const VALIDATION_ERRORS: ReadonlyMap<string, ErrorEntry> = new Map(
  Object.values(Errors)
    .filter((e) => e.status === 400)
    .map((e) => [e.err, e]),
);

/**
 * Messages the browser shows that are not server errors but share the error display (docs/reference.md user-portal §4:
 * the Login page after the countdown; docs/reference.md admin-console §2 banners).
 */
export const ClientMessage = {
  sessionExpired: "Your session has expired. Log in again for renewed access.",
  licenseExpiresSoon: "err.licenseExpiresSoon",
  serverOutdated: "err.serverOutdated",
} as const;

/**
 * The `Error` of a status entry the user sees (docs/reference.md user-portal §6): a plain sentence key, never the
 * enforcement's own text (that goes to the audit log and the admin views).
 */
export const GrantErrorKey = {
  /** The grant failed on the enforcement side. */
  grantFailed: "err.grantFailed",
  /** Removing the access failed on the enforcement side. */
  revokeFailed: "err.revokeFailed",
  /** The user's address is excluded by the ACL's IpExclusions. */
  addressNotAllowed: "err.addressNotAllowed",
} as const;

/** The body of every error response. */
export interface ErrorBody {
  Err: string;
  Extra?: string;
}
