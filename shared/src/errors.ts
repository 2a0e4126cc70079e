/**
 * The error vocabulary of the wire contract (user-portal §8, admin-console §8).
 *
 * Every error body is `{ Err, Extra? }`. `Err` is a translation key (`err.*`) or one of the spec's
 * server messages; `Extra` is appended after a colon by the browser and translated when it starts
 * with `err.`. The server maps each error to an HTTP status in exactly one place.
 */
import { z } from "zod";

/** Translation keys the browser knows (user-portal §8, admin-console §8). */
export const ErrKey = {
  invalidSession: "err.invalidSession",
  totpVerificationRequired: "err.totpVerificationRequired",
  totpEnrolmentRequired: "err.totpEnrolmentRequired",
  unauthorised: "err.unauthorised",
  unlicensedDescription: "err.unlicensedDescription",
  youDoNotHaveALicense: "err.youDoNotHaveALicense",
  userLimitReached: "err.userLimitReached",
  /** Creating an agent beyond the licence's MaxMachines (Extra names the limit). */
  machineLimitReached: "err.machineLimitReached",
  invalidCidr: "err.invalidCidr",
  passwordsDontMatch: "err.passwordsDontMatch",
  backendTypeNoAgents: "err.backendTypeNoAgents",
  agentBackendTypeNotSupported: "err.agentBackendTypeNotSupported",
  agentNeverConnected: "err.agentNeverConnected",
  ipsetNoCommand: "err.ipsetNoCommand",
  ipsetNoSudo: "err.ipsetNoSudo",
  agentIncapable: "err.agentIncapable",
  invalidAgentId: "err.invalidAgentId",
  noBackendSelected: "err.noBackendSelected",
  createBackendBeforeACL: "err.createBackendBeforeACL",
  aclIdRequired: "err.aclIdRequired",
  aclIdMustBeNumber: "err.aclIdMustBeNumber",
  aclNameRequired: "err.aclNameRequired",
  invalidAclName: "err.invalidAclName",
  invalidKnocproxyAclName: "err.invalidKnocproxyAclName",
  ipsetNameRequired: "err.ipsetNameRequired",
  licenseExpiresSoon: "err.licenseExpiresSoon",
  serverOutdated: "err.serverOutdated",
  allowlistAccessIpRestrictionFormRequired: "err.allowlistAccessIpRestrictionFormRequired",
  repeatedEnvVarNames: "err.repeatedEnvVarNames",
  emptyEnvVarName: "err.emptyEnvVarName",
  invalidEnvVarName: "err.invalidEnvVarName",
  invalidFortiosConfig: "err.invalidFortiosConfig",
  failedToRefreshLicenseStatus: "err.failedToRefreshLicenseStatus",
  cannotResetOwn2fa: "cannotResetOwn2fa",
  cannotDisableOwn2fa: "cannotDisableOwn2fa",
  accountDisabled: "accountDisabled",
  /** A status entry's Error: the grant failed on the enforcement side (the details are the admins'). */
  grantFailed: "err.grantFailed",
  /** A status entry's Error: removing the access failed on the enforcement side. */
  revokeFailed: "err.revokeFailed",
  /** A status entry's Error: the user's address is excluded by the ACL's IpExclusions. */
  addressNotAllowed: "err.addressNotAllowed",
} as const;

/** Plain server messages of the spec, used as `Err` where no `err.*` key exists. */
export const ServerMessage = {
  invalidCredentials: "Invalid credentials",
  badRequest: "Bad request",
  tooManyRequests: "Too many requests. Please try again in...",
  failedDecodingRequestBody: "Failed decoding request body",
  internalServerError: "Internal server error",
  unauthorised: "Unauthorised",
  notFound: "Not found",
  agentNameExists: "An agent with that name already exists",
  groupNameExists: "A group with that name already exists",
  invalidMaximumGrantDuration: "The maximum grant duration for the ACL is invalid",
  mismatchingIds: "Mismatching IDs",
  detachBackendsFirst: "Please detach all backends from this agent before deleting it",
  cannotChangeBackendType: "Cannot change backend type",
  cannotChangeUsername: "Cannot change username",
  mustSpecifyUsername: "You must specify a username",
  createBackendBeforeAcl: "Create a backend before creating an ACL",
  createAgentBeforeBackend: "Create an agent before creating a backend",
  invalidAclName: "Invalid ACL name",
  loginNotPermitted: "Login not permitted",
  unlicensed: "Unlicensed",
  invalidIpAddress: "Invalid IP address",
  /** admin-console §5 Settings: SAML metadata URLs, PublicURL and the discovery URL (as the backends' BackendMessage.urlMustBeHttp). */
  urlMustBeHttp: "URL must be http or https",
  /** admin-console §5 Settings: the LDAP URL (ldap, ldaps, ldapi or cldap). */
  urlMustBeLdap: "URL must be ldap or ldaps",
  /** admin-console §5 Settings: the GELF listener URL. */
  urlMustBeGelf: "URL must be udp, tcp, or tls",
  /** admin-console §5 "SAML users cannot be edited": PUT /admin/users/{id} of a SAML user. */
  samlUsersCannotBeEdited: "SAML users cannot be edited: the identity provider manages them",
} as const;

/** Any `Err` value the server may send. */
export type ErrValue =
  (typeof ErrKey)[keyof typeof ErrKey] | (typeof ServerMessage)[keyof typeof ServerMessage] | string;

/** The body of every error response. */
export const ErrorBodySchema = z.object({ Err: z.string(), Extra: z.string().optional() });
/** The body of every error response. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
