/**
 * The frame of every signed-in admin page (docs/reference.md admin-console §2): the sidebar (Home, Agents, Knocs,
 * Approvals, Groups, Users, Admins, Logs, API keys, Settings, My passkeys, Logout), the global alert banner, the page, the
 * error dialog and the confirmations.
 */
import { Link, Outlet, useNavigate } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { ReactNode } from "react";
import { ColorModeSwitch } from "../../ui/components/ColorModeSwitch.tsx";
import { Logo } from "../../ui/components/Logo.tsx";
import { LogoutIcon } from "../../ui/components/icons.tsx";
import { Toaster } from "../../ui/kit/Toasts.tsx";
import { adminLogout } from "../api/auth.ts";
import { AlertBanner } from "./AlertBanner.tsx";
import { ErrorDialog } from "./ErrorDialog.tsx";

function NavItem({ to, children }: { to: string; children: ReactNode }) {
  return (
    <li>
      <Link
        to={to}
        className="block rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
        activeProps={{
          className: "bg-accent-50 text-accent-900 dark:bg-slate-800 dark:text-white",
          "aria-current": "page",
        }}
        activeOptions={{ exact: false }}
      >
        {children}
      </Link>
    </li>
  );
}

/** The console frame around the current page. */
export function Shell() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const client = useQueryClient();

  async function logout(): Promise<void> {
    await adminLogout().catch(() => undefined);
    client.clear();
    await navigate({ to: "/admin", replace: true });
  }

  return (
    <div className="flex min-h-dvh bg-slate-50 dark:bg-slate-950">
      <aside className="flex w-56 shrink-0 flex-col border-r border-slate-200 bg-white px-3 py-4 dark:border-slate-800 dark:bg-slate-900">
        <div className="mb-6 px-3 text-lg">
          <Logo />
        </div>
        <nav aria-label={t`Admin`} className="flex-1">
          <ul className="space-y-1">
            <NavItem to="/admin/home">
              <Trans>Home</Trans>
            </NavItem>
            <NavItem to="/admin/agents">
              <Trans>Agents</Trans>
            </NavItem>
            <NavItem to="/admin/knocs">
              <Trans>Knocs</Trans>
            </NavItem>
            <NavItem to="/admin/approvals">
              <Trans>Approvals</Trans>
            </NavItem>
            <NavItem to="/admin/groups">
              <Trans>Groups</Trans>
            </NavItem>
            <NavItem to="/admin/users">
              <Trans>Users</Trans>
            </NavItem>
            <NavItem to="/admin/admins">
              <Trans>Admins</Trans>
            </NavItem>
            <NavItem to="/admin/logs">
              <Trans>Logs</Trans>
            </NavItem>
            <NavItem to="/admin/api-keys">
              <Trans>API keys</Trans>
            </NavItem>
            <NavItem to="/admin/settings">
              <Trans>Settings</Trans>
            </NavItem>
            <NavItem to="/admin/passkeys">
              <Trans>My passkeys</Trans>
            </NavItem>
          </ul>
        </nav>
        <div className="space-y-3 px-1">
          <ColorModeSwitch />
          <button
            type="button"
            onClick={() => void logout()}
            className="flex w-full items-center gap-2 rounded-md px-2 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
          >
            <LogoutIcon className="size-4" />
            <Trans>Logout</Trans>
          </button>
        </div>
      </aside>
      <div className="min-w-0 flex-1">
        <AlertBanner />
        <main className="mx-auto max-w-6xl px-6 py-8">
          <Outlet />
        </main>
      </div>
      <ErrorDialog />
      <Toaster />
    </div>
  );
}
