/**
 * Where the home pages show a group approver the requests to decide (docs/decisions.md "Approval requests"):
 * nothing until GET /api/approvals has had a request during this page view (users who approve nothing never see
 * it), then the approvals section (loaded on demand, so the dashboard's first load does not carry the form
 * library and the kit's dialogs).
 */
import { lazy, Suspense } from "react";
import { useApprovals } from "../hooks/useApprovals.ts";

const ApprovalsSection = lazy(async () => ({
  default: (await import("./ApprovalsSection.tsx")).ApprovalsSection,
}));

/** `enabled`: the user is licensed (unlicensed users have no dashboard to decide from). */
export function ApproverInbox({ enabled }: { enabled: boolean }) {
  const { approvals, seen, refresh } = useApprovals(enabled);
  if (!enabled || !seen) return null;
  return (
    <Suspense fallback={null}>
      <ApprovalsSection approvals={approvals} onChanged={refresh} />
    </Suspense>
  );
}
