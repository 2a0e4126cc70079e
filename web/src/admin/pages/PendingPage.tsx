/**
 * The admin routes whose screens are not built yet (issue #9: Knocs and the wizards, ACLs,
 * settings): the route exists, is guarded and titled,
 * and says that the screen is still to come and the admin API serves it meanwhile.
 */
import type { ComponentType } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { PageHeader } from "../components/PageHeader.tsx";

const TITLES = {
  knocs: msg`Knocs`,
  knocUpdate: msg`Update Knoc`,
  acls: msg`ACLs`,
  settings: msg`Settings`,
} satisfies Record<string, MessageDescriptor>;

/** The screens still to come. */
export type PendingScreen = keyof typeof TITLES;

/** The page component of a screen still to come. */
export function pendingPage(screen: PendingScreen): ComponentType {
  return function PendingPage() {
    const { i18n } = useLingui();
    return (
      <>
        <PageHeader title={i18n._(TITLES[screen])} />
        <p data-testid="pending-screen" className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>This screen is not in the browser yet. Until it is, use the admin API under /api/admin/.</Trans>
        </p>
      </>
    );
  };
}
