/**
 * Admins (docs/reference.md admin-console §2 "Admins", §7 /admin/admins and /admin/adminsessions): the list (cached 3
 * minutes), an admin's sessions, and the writes — create, update, delete, reset 2FA, end one admin
 * session, end all admin sessions (the signed-in admin's too) — each refreshing the list.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Admin, AdminSession, AdminWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the admins. */
export const adminQueries = {
  all: ["admin", "admins"] as const,
  list: () =>
    queryOptions({
      queryKey: adminQueries.all,
      queryFn: () => apiRequest<Admin[]>("GET", "/admin/admins"),
      staleTime: StaleMs.adminList,
    }),
  sessions: (id: string) =>
    queryOptions({
      queryKey: [...adminQueries.all, id, "sessions"],
      queryFn: () => apiRequest<AdminSession[]>("GET", `/admin/admins/${enc(id)}/sessions`),
      staleTime: 0,
    }),
};

const useAdminWrite = <V, R>(call: (vars: V) => Promise<R>) => useInvalidatingMutation(call, [adminQueries.all]);

/** POST /api/admin/admins. */
export const useCreateAdmin = () =>
  useAdminWrite((body: AdminWrite) => apiRequest<string>("POST", "/admin/admins", { body }));
/** PUT /api/admin/admins/{id}. */
export const useUpdateAdmin = () =>
  useAdminWrite((body: AdminWrite & { ID: string }) =>
    apiRequest<Admin>("PUT", `/admin/admins/${enc(body.ID)}`, { body }),
  );
/** DELETE /api/admin/admins/{id}. */
export const useDeleteAdmin = () =>
  useAdminWrite((id: string) => apiRequest<void>("DELETE", `/admin/admins/${enc(id)}`));
/** DELETE /api/admin/admins/{id}/totpToken (reset 2FA; refused for oneself). */
export const useResetAdmin2fa = () =>
  useAdminWrite((id: string) => apiRequest<void>("DELETE", `/admin/admins/${enc(id)}/totpToken`));
/** DELETE /api/admin/adminsessions/{id}. */
export const useDeleteAdminSession = () =>
  useAdminWrite((id: string) => apiRequest<void>("DELETE", `/admin/adminsessions/${enc(id)}`));
/** DELETE /api/admin/adminsessions (every admin session, this one included). */
export const useInvalidateAdminSessions = () => useAdminWrite(() => apiRequest<void>("DELETE", "/admin/adminsessions"));
