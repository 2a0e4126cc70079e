/**
 * The audit log (docs/reference.md admin-console §2 "Audit logs", §7, §9): one page of 25 entries for a search, with
 * the total from the X-Total-Count header (cached 3 minutes, like the other admin lists), and the
 * 30-day clear, which refreshes the log.
 */
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { AuditLogHeaders, AuditLogLimits } from "@postern/shared";
import type { AuditLogCleared, AuditLogPage } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { StaleMs } from "./policy.ts";

/** One page of entries and the number of entries matching the search. */
export interface LogPage {
  entries: AuditLogPage;
  total: number;
}

/** GET /api/admin/logs?page&pageSize&search. */
async function readPage(page: number, search: string): Promise<LogPage> {
  let total = 0;
  const query = new URLSearchParams({ page: String(page), pageSize: String(AuditLogLimits.defaultPageSize) });
  if (search.trim() !== "") query.set("search", search.trim());
  const entries = await apiRequest<AuditLogPage>("GET", `/admin/logs?${query.toString()}`, {
    onResponse: (response) => {
      total = Number(response.headers.get(AuditLogHeaders.totalCount) ?? "0") || 0;
    },
  });
  return { entries, total };
}

/** The URL of the CSV export of every entry matching `search` (the server names the file by date). */
export function exportUrl(search: string): string {
  const query = search.trim() === "" ? "" : `?${new URLSearchParams({ search: search.trim() }).toString()}`;
  return `/api/admin/logs/export${query}`;
}

/** Query options of the audit log. */
export const logQueries = {
  all: ["admin", "logs"] as const,
  page: (page: number, search: string) =>
    queryOptions({
      queryKey: [...logQueries.all, page, search],
      queryFn: () => readPage(page, search),
      staleTime: StaleMs.adminList,
      placeholderData: keepPreviousData,
    }),
};

/** DELETE /api/admin/logs: removes entries older than 30 days. */
export function useClearLogs() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<AuditLogCleared>("DELETE", "/admin/logs"),
    onSuccess: () => client.invalidateQueries({ queryKey: logQueries.all }),
  });
}
