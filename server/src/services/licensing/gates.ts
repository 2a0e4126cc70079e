/**
 * The licence gates (docs/reference.md admin-console §1, §5 "Create-user is blocked (err.userLimitReached) when the user
 * count is at or above the limit plus overage", §6, §9; docs/reference.md user-portal §6 "Unlicensed users see a dialog",
 * §9). Plain functions over a database handle or the caller's transaction, so the grant engine and
 * the user service check inside their own transactions. `now` is epoch milliseconds.
 *
 * With no licence installed the server is "unlicensed" but not locked: Knoc create/update is refused
 * (requireLicence), users are neither limited nor refused. Once a licence is installed its limits
 * apply; once it has expired (or the store is broken) users are refused access too.
 * Counted users are every row of `users` (admins are a separate table and never counted).
 */
import { Errors } from "@postern/shared";
import type { LicensePayload } from "@postern/shared";
import type { Db, Tx } from "../../db/index.ts";
import { AppError } from "../../errors.ts";
import * as repo from "../../repositories/licenses.ts";
import { readInstalledLicence } from "./store.ts";
import { allowedUsers, isExpired } from "./state.ts";

type Q = Db | Tx;

/** 500 err.failedToRefreshLicenseStatus with the store's problem as Extra. */
export const failedToRefresh = (reason: string) => new AppError(Errors.failedToRefreshLicenseStatus, reason);

/**
 * Requires a valid, unexpired licence (docs/reference.md admin-console §1 "A license is required to create or update
 * Knocs"); returns its payload. Throws 403 err.youDoNotHaveALicense — with Extra err.licenseExpired
 * for an expired licence, or err.failedToRefreshLicenseStatus when the store is broken.
 */
export async function requireLicence(q: Q, now: number): Promise<LicensePayload> {
  const l = await readInstalledLicence(q);
  if (l.kind === "none") throw new AppError(Errors.youDoNotHaveALicense);
  if (l.kind === "broken") throw new AppError(Errors.youDoNotHaveALicense, Errors.failedToRefreshLicenseStatus.err);
  if (isExpired(l.payload, now)) throw new AppError(Errors.youDoNotHaveALicense, Errors.licenseExpired.err);
  return l.payload;
}

/**
 * Who creates a user: an admin (admin API, CLI: any AuthType, SAML included) or the IdP (a SAML
 * user created at its first sign-in).
 */
export type UserCreator = "admin" | "idp";

/**
 * The user-creation gate: refuses a new user when the counted users are already at or above
 * UserLimit + overage (403 err.userLimitReached). Only users the IdP creates at their first sign-in
 * (`by` "idp") are never refused, though they count (docs/reference.md admin-console §9 "SAML-created users may
 * exceed the hard limit but still count"); a SAML user an admin creates is refused like any other.
 * No licence installed: no limit. A broken store: 500 err.failedToRefreshLicenseStatus (the limit
 * is unknown).
 */
export async function requireUserSlot(q: Q, by: UserCreator): Promise<void> {
  if (by === "idp") return;
  const l = await readInstalledLicence(q);
  if (l.kind === "none") return;
  if (l.kind === "broken") throw failedToRefresh(l.reason);
  if ((await repo.countUsers(q)) >= allowedUsers(l.payload)) throw new AppError(Errors.userLimitReached);
}

/**
 * The agent-creation gate (the licence's MaxMachines, the agents it covers): refuses a new agent when
 * the agents already number MaxMachines or more, with 403 err.machineLimitReached and an Extra naming
 * the limit. No licence installed: no limit (as for users). A broken store: 500
 * err.failedToRefreshLicenseStatus (the limit is unknown). Call it in the creating transaction.
 */
export async function requireMachineSlot(q: Q): Promise<void> {
  const l = await readInstalledLicence(q);
  if (l.kind === "none") return;
  if (l.kind === "broken") throw failedToRefresh(l.reason);
  const max = l.payload.MaxMachines;
  const agents = await repo.countAgents(q);
  if (agents >= max)
    throw new AppError(
      Errors.machineLimitReached,
      `MaxMachines ${max}: the licence covers ${max} agent${max === 1 ? "" : "s"} and ${agents} exist${agents === 1 ? "s" : ""}`,
    );
}

/**
 * The SessionLimit a user may have (docs/reference.md admin-console §5 "SessionLimit ... max the license SessionLimit,
 * default the license SessionLimit"): with a licence, null (unlimited) becomes the licence's
 * SessionLimit and a larger value is refused with 400 "Bad request", Extra "SessionLimit: must be
 * between 1 and N (the licence's SessionLimit)". Without a readable licence the value is kept.
 */
export async function licensedSessionLimit(q: Q, requested: number | null): Promise<number | null> {
  const l = await readInstalledLicence(q);
  if (l.kind !== "installed") return requested;
  const max = l.payload.SessionLimit;
  if (requested === null) return max;
  if (requested > max)
    throw new AppError(Errors.badRequest, `SessionLimit: must be between 1 and ${max} (the licence's SessionLimit)`);
  return requested;
}

/**
 * Whether the install lets users in at all (the session status's `Licensed`): true with no licence
 * installed (not yet enforced) or a licence that has not expired; false when it has expired or the
 * store is broken.
 */
export async function usersAdmitted(q: Q, now: number): Promise<boolean> {
  const l = await readInstalledLicence(q);
  if (l.kind === "none") return true;
  if (l.kind === "broken") return false;
  return !isExpired(l.payload, now);
}

/**
 * A predicate telling whether a user is licensed (User.Licensed, the status's `UserLicensed`),
 * reading the store once: the first UserLimit + overage users in creation order (CreatedAt, then ID)
 * are licensed, later ones are not (docs/reference.md admin-console §2 "Users beyond the license are greyed out").
 * Nobody is licensed when the install does not admit users (see usersAdmitted); everybody is when no
 * licence is installed.
 */
export async function licensedUsers(q: Q, now: number): Promise<(userId: string) => boolean> {
  const l = await readInstalledLicence(q);
  if (l.kind === "none") return () => true;
  if (l.kind === "broken" || isExpired(l.payload, now)) return () => false;
  const allowed = allowedUsers(l.payload);
  if ((await repo.countUsers(q)) <= allowed) return () => true;
  const ids = new Set(await repo.firstUserIds(q, allowed));
  return (userId) => ids.has(userId);
}

/** The ids of every licensed user (the rule of licensedUsers, as a set). */
export async function licensedUserIds(q: Q, now: number): Promise<Set<string>> {
  const l = await readInstalledLicence(q);
  if (l.kind === "broken" || (l.kind === "installed" && isExpired(l.payload, now))) return new Set();
  const total = await repo.countUsers(q);
  return new Set(await repo.firstUserIds(q, l.kind === "none" ? total : Math.min(total, allowedUsers(l.payload))));
}

/**
 * Both licence facts of one user's status, reading the store once: whether the install admits users
 * (usersAdmitted) and whether this user is licensed (as licensedUsers, with one position query;
 * false for an unknown user).
 */
export async function userLicence(
  q: Q,
  userId: string,
  now: number,
): Promise<{ admitted: boolean; licensed: boolean }> {
  const l = await readInstalledLicence(q);
  if (l.kind === "none") return { admitted: true, licensed: true };
  if (l.kind === "broken" || isExpired(l.payload, now)) return { admitted: false, licensed: false };
  const position = await repo.userPosition(q, userId);
  return { admitted: true, licensed: position !== null && position < allowedUsers(l.payload) };
}

/** Whether one user is licensed (see userLicence). */
export async function isUserLicensed(q: Q, userId: string, now: number): Promise<boolean> {
  return (await userLicence(q, userId, now)).licensed;
}
