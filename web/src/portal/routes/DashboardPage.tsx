/**
 * NewUserDashboard (docs/reference.md user-portal §2 "New dashboard"): header with the session timer, colour mode,
 * change password (local accounts) and logout; greeting, address, account expiry; for licensed
 * users a card/list toggle, a search box above 10 ACLs, and either the card view (Favourites; Top
 * above 20 ACLs with the 5 most used; categories, Default shown as "Other" and last) or the list
 * view (Favourite, Category, System, Access). Unlicensed users get the dialog with only Logout. Group
 * approvers see the requests waiting for their decision above the Knocs (ApproverInbox).
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { useAtom, useAtomValue } from "jotai";
import { Trans, useLingui } from "@lingui/react/macro";
import { Limits } from "@postern/shared";
import type { SessionStatus, StatusAcl } from "@postern/shared";
import { errorText } from "../../ui/api/error-messages.ts";
import { AclSection } from "../components/AclSection.tsx";
import { AclTable } from "../components/AclTable.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { SearchBox } from "../components/SearchBox.tsx";
import { ReferrerNote } from "../components/ReferrerNote.tsx";
import { SessionSummary } from "../components/SessionSummary.tsx";
import { TopBar } from "../components/TopBar.tsx";
import { UnlicensedDialog } from "../components/UnlicensedDialog.tsx";
import { ApprovalRequestDialog } from "../components/ApprovalRequestDialog.tsx";
import { ApproverInbox } from "../components/ApproverInbox.tsx";
import { ViewSwitch } from "../components/ViewSwitch.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";
import { useUserSession } from "../hooks/useUserSession.ts";
import { groupByCategory, matchesSearch, visibleAcls } from "../lib/acl.ts";
import { favouriteAcls, listOrder, topAcls } from "../lib/dashboard.ts";
import { toggleFavourite } from "../../ui/lib/storage.ts";
import { aclSearchAtom, favouritesAtom, useCountsAtom, viewAtom } from "../state/atoms.ts";

const PasswordDialog = lazy(async () => ({
  default: (await import("../components/PasswordDialog.tsx")).PasswordDialog,
}));

const PasskeysDialog = lazy(async () => ({
  default: (await import("../components/PasskeysDialog.tsx")).PasskeysDialog,
}));

/** How long the "password changed" note stays, in milliseconds. */
const CHANGED_NOTE_MS = 6000;

/** `initialStatus` is the GET /api/status answer the route guard loaded. */
export function DashboardPage({ initialStatus }: { initialStatus: SessionStatus }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Your access`);
  const session = useUserSession(initialStatus);
  const { status, licensed } = session;
  const search = useAtomValue(aclSearchAtom);
  const view = useAtomValue(viewAtom);
  const [favourites, setFavourites] = useAtom(favouritesAtom);
  const useCounts = useAtomValue(useCountsAtom);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [passwordChanged, setPasswordChanged] = useState(false);
  const [passkeysOpen, setPasskeysOpen] = useState(false);

  useEffect(() => {
    if (!passwordChanged) return;
    const timer = window.setTimeout(() => setPasswordChanged(false), CHANGED_NOTE_MS);
    return () => window.clearTimeout(timer);
  }, [passwordChanged]);

  const onToggleFavourite = useCallback(
    (aclId: string) => setFavourites((ids) => toggleFavourite(ids, aclId)),
    [setFavourites],
  );
  const favouriteIds = useMemo(() => new Set(favourites), [favourites]);

  const collator = useMemo(
    () => new Intl.Collator(i18n.locales ?? i18n.locale, { sensitivity: "base", numeric: true }),
    [i18n.locale, i18n.locales],
  );
  const acls = useMemo(() => visibleAcls(status.ACLs), [status.ACLs]);
  const shown = useMemo(() => acls.filter((acl) => matchesSearch(acl, search)), [acls, search]);
  const groups = useMemo(() => groupByCategory(shown, collator), [shown, collator]);
  const sortedShown = useMemo(() => groups.flatMap((g) => g.acls), [groups]);
  const favouriteList = useMemo(() => favouriteAcls(sortedShown, favourites), [sortedShown, favourites]);
  const top = useMemo(
    () => topAcls(shown, acls.length, useCounts, Limits.topAboveAclCount, Limits.topCount, collator),
    [shown, acls.length, useCounts, collator],
  );
  const rows = useMemo(() => listOrder(shown, collator), [shown, collator]);

  const common = {
    busyIds: session.busyIds,
    errors: session.actionErrors,
    favouriteIds,
    onAction: session.onAction,
    onToggleFavourite,
  };
  const section = (
    title: string,
    kind: "favourites" | "top" | "category",
    list: readonly StatusAcl[],
    category?: string,
  ) => (
    <AclSection
      key={`${kind}:${category ?? ""}`}
      title={title}
      kind={kind}
      acls={list}
      {...(category === undefined ? {} : { category })}
      {...common}
    />
  );

  return (
    <div className="min-h-dvh">
      <TopBar
        ends={status.Ends}
        onExpired={session.onExpired}
        onLogout={session.onLogout}
        loggingOut={session.loggingOut}
        colorMode
        onChangePassword={status.AuthType === "local" && licensed ? () => setPasswordOpen(true) : undefined}
        onPasskeys={
          status.AuthType !== "SAML" && status.AuthType !== "apikey" && licensed
            ? () => setPasskeysOpen(true)
            : undefined
        }
      />
      <main className="mx-auto max-w-6xl space-y-8 px-4 py-8 sm:px-6">
        <SessionSummary status={status} />
        <ReferrerNote note={session.referrerNote} />
        <ApproverInbox enabled={licensed} />
        {passwordChanged ? (
          <p
            role="status"
            className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 ring-1 ring-emerald-200 dark:bg-emerald-950/50 dark:text-emerald-200 dark:ring-emerald-900"
          >
            <Trans>Your password has been changed.</Trans>
          </p>
        ) : null}
        {session.refreshError !== undefined ? <ErrorMessage message={errorText(i18n, session.refreshError)} /> : null}
        {licensed ? (
          <>
            <div className="flex flex-wrap items-center justify-between gap-3">
              {acls.length > Limits.searchAboveAclCount ? <SearchBox /> : <span />}
              <ViewSwitch />
            </div>
            {acls.length === 0 ? (
              <p className="rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
                <Trans>No resources have been assigned to you yet.</Trans>
              </p>
            ) : shown.length === 0 ? (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                <Trans>No resources match your search.</Trans>
              </p>
            ) : view === "list" ? (
              <AclTable
                variant="list"
                acls={rows}
                busyIds={session.busyIds}
                errors={session.actionErrors}
                onAction={session.onAction}
                favouriteIds={favouriteIds}
                onToggleFavourite={onToggleFavourite}
              />
            ) : (
              <>
                {favouriteList.length > 0 ? section(t`Favourites`, "favourites", favouriteList) : null}
                {top.length > 0 ? section(t`Top`, "top", top) : null}
                {groups.map((group) =>
                  section(group.isDefault ? t`Other` : group.category, "category", group.acls, group.category),
                )}
              </>
            )}
          </>
        ) : null}
      </main>
      {session.asking ? (
        <ApprovalRequestDialog acl={session.asking} onAsk={session.onAsk} onClose={session.onCancelAsk} />
      ) : null}
      {!licensed ? <UnlicensedDialog onLogout={session.onLogout} loggingOut={session.loggingOut} /> : null}
      {passkeysOpen ? (
        <Suspense fallback={null}>
          <PasskeysDialog onClose={() => setPasskeysOpen(false)} />
        </Suspense>
      ) : null}
      {passwordOpen ? (
        <Suspense fallback={null}>
          <PasswordDialog
            userDisplayName={status.Name}
            onClose={() => setPasswordOpen(false)}
            onChanged={() => {
              setPasswordOpen(false);
              setPasswordChanged(true);
            }}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
