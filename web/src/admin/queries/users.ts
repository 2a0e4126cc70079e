/**
 * Users (docs/reference.md admin-console §2 "Users", §7 /admin/users and /admin/sessions): the list (cached 3
 * minutes; the users page reads it every 30 s), a user's sessions, groups and ACLs, and the
 * writes — create, update, delete, reset 2FA, end one session, end all user sessions — each
 * refreshing what it changes. The header's user-limit banner reads the same list.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Group, User, UserAcl, UserSession, UserWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { RefetchMs, StaleMs } from "./policy.ts";
import { statusQueries } from "./status.ts";

const enc = encodeURIComponent;

/** GET /api/admin/users. */
const listUsers = (): Promise<User[]> => apiRequest<User[]>("GET", "/admin/users");

/** Query options of the users. */
export const userQueries = {
  all: ["admin", "users"] as const,
  /** The header's read (cached 3 minutes). */
  list: () => queryOptions({ queryKey: userQueries.all, queryFn: listUsers, staleTime: StaleMs.adminList }),
  /** The users page's read: every 30 s. */
  page: () =>
    queryOptions({
      queryKey: userQueries.all,
      queryFn: listUsers,
      staleTime: StaleMs.adminList,
      refetchInterval: RefetchMs.usersList,
    }),
  /** A user's live sessions, groups and ACLs (the view dialog; always asked afresh). */
  sessions: (id: string) =>
    queryOptions({
      queryKey: [...userQueries.all, id, "sessions"],
      queryFn: () => apiRequest<UserSession[]>("GET", `/admin/users/${enc(id)}/sessions`),
      staleTime: 0,
    }),
  groups: (id: string) =>
    queryOptions({
      queryKey: [...userQueries.all, id, "groups"],
      queryFn: () => apiRequest<Group[]>("GET", `/admin/users/${enc(id)}/groups`),
      staleTime: 0,
    }),
  acls: (id: string) =>
    queryOptions({
      queryKey: [...userQueries.all, id, "acls"],
      queryFn: () => apiRequest<UserAcl[]>("GET", `/admin/users/${enc(id)}/acls`),
      staleTime: 0,
    }),
};

/** The mutation hook of one write that refreshes the users (and the counts of the status). */
const useUserWrite = <V, R>(call: (vars: V) => Promise<R>) =>
  useInvalidatingMutation(call, [userQueries.all, statusQueries.all]);

/** POST /api/admin/users (answers the new id). */
export const useCreateUser = () =>
  useUserWrite((body: UserWrite) => apiRequest<string>("POST", "/admin/users", { body }));
/** PUT /api/admin/users/{id}. */
export const useUpdateUser = () =>
  useUserWrite((body: UserWrite & { ID: string }) => apiRequest<User>("PUT", `/admin/users/${enc(body.ID)}`, { body }));
/** DELETE /api/admin/users/{id}. */
export const useDeleteUser = () => useUserWrite((id: string) => apiRequest<void>("DELETE", `/admin/users/${enc(id)}`));
/** DELETE /api/admin/users/{id}/totpToken (reset 2FA). */
export const useResetUser2fa = () =>
  useUserWrite((id: string) => apiRequest<void>("DELETE", `/admin/users/${enc(id)}/totpToken`));
/** DELETE /api/admin/sessions/{id} (one user session). */
export const useDeleteUserSession = () =>
  useUserWrite((id: string) => apiRequest<void>("DELETE", `/admin/sessions/${enc(id)}`));
/** DELETE /api/admin/sessions (every user session). */
export const useInvalidateUserSessions = () => useUserWrite(() => apiRequest<void>("DELETE", "/admin/sessions"));
