/**
 * The heading of an admin page: sets the document title and the admin favicon (docs/reference.md admin-console §2),
 * and shows the page's h1 with its actions on the right.
 */
import type { ReactNode } from "react";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";

/** The admin pages' favicon. */
export const ADMIN_FAVICON = "/favicon-admin.svg";

/** Page heading: `title` is both the h1 and the document title. */
export function PageHeader({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  useDocumentHead(title, ADMIN_FAVICON);
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">{title}</h1>
        {children ? <div className="mt-1 text-sm text-slate-600 dark:text-slate-400">{children}</div> : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}
