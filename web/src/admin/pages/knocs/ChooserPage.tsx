/**
 * The New Knoc chooser, /admin/knocs/new (docs/reference.md admin-console §2 "New Knoc chooser"): the question 'I want to
 * protect...' answered by tiles — Linux host/firewall (the Linux wizard), Firewalls/Appliances (the
 * Application wizard), Identity Aware Proxy (the Proxy wizard), Knoc modules (the pre-packaged
 * scripts: an information dialog only), Custom script/API (the Script wizard) — and 'Need something
 * else?' with a contact-support link. Choosing a kind resets the wizard state. Without a licence the
 * alert 'You do not have a license' is shown above the tiles (the wizards then show no steps).
 */
import { useState } from "react";
import type { ReactNode } from "react";
import { useSetAtom } from "jotai";
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { Errors } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { translateAdminMessage } from "../../lib/errors.ts";
import { statusQueries } from "../../queries/status.ts";
import type { WizardKind } from "./wizards/wizard-defaults.ts";
import { initialDraft, wizardAtom } from "./wizards/wizard-state.ts";
import { FIRST_STEP } from "./wizards/WizardPage.tsx";

/** Where "Need something else?" leads (the spec names a contact-support link, not its address). */
export const SUPPORT_URL = "mailto:support@postern.invalid";
/** How many pre-packaged Knoc modules exist (docs/reference.md admin-console §9 "25 Knoc modules exist"). */
const KNOC_MODULES = 25;

const tileClass =
  "flex h-full w-full flex-col items-start gap-1 rounded-xl bg-white p-4 text-left shadow-sm ring-1 ring-slate-200 hover:ring-2 hover:ring-accent-600 focus-visible:ring-2 focus-visible:ring-accent-600 dark:bg-slate-900 dark:ring-slate-800";

function Tile({ title, children, onClick }: { title: string; children: ReactNode; onClick: () => void }) {
  return (
    <li>
      <button type="button" className={tileClass} onClick={onClick}>
        <span className="font-semibold text-slate-900 dark:text-white">{title}</span>
        <span className="text-sm text-slate-600 dark:text-slate-400">{children}</span>
      </button>
    </li>
  );
}

/** The chooser page. */
export function ChooserPage() {
  const { t, i18n } = useLingui();
  const navigate = useNavigate();
  const setDraft = useSetAtom(wizardAtom);
  const status = useQuery(statusQueries.header());
  const [modules, setModules] = useState(false);
  const unlicensed = status.data?.Licensing === null;
  const start = (kind: WizardKind): void => {
    setDraft(initialDraft(kind, FIRST_STEP[kind]));
    void navigate({ to: "/admin/knocs/new/$kind", params: { kind } });
  };
  const count = KNOC_MODULES;
  return (
    <>
      <PageHeader title={t`New Knoc`}>
        <Trans>A Knoc grants authorised users access to one protected system through an agent or an allowlist.</Trans>
      </PageHeader>
      {unlicensed ? (
        <div
          role="alert"
          className="mb-6 rounded-md bg-red-50 p-4 text-sm text-red-900 ring-1 ring-red-200 dark:bg-red-950 dark:text-red-100 dark:ring-red-800"
        >
          {translateAdminMessage(i18n, Errors.youDoNotHaveALicense.err)}.{" "}
          <Link to="/admin/settings" className="font-semibold underline">
            <Trans>Install a license</Trans>
          </Link>
        </div>
      ) : null}
      <h2 id="protect" className="mb-3 text-lg font-semibold text-slate-900 dark:text-white">
        <Trans>I want to protect...</Trans>
      </h2>
      <ul aria-labelledby="protect" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <Tile title={t`Linux host/firewall`} onClick={() => start("linux")}>
          <Trans>An agent adds granted addresses to an ipset on the host.</Trans>
        </Tile>
        <Tile title={t`Firewalls/Appliances`} onClick={() => start("application")}>
          <Trans>A vendor firewall or cloud security group, or an allowlist the device reads.</Trans>
        </Tile>
        <Tile title={t`Identity Aware Proxy`} onClick={() => start("proxy")}>
          <Trans>HAProxy lets granted addresses through to web applications.</Trans>
        </Tile>
        <Tile title={t`Knoc modules`} onClick={() => setModules(true)}>
          <Trans>Pre-packaged scripts for common systems.</Trans>
        </Tile>
        <Tile title={t`Custom script/API`} onClick={() => start("script")}>
          <Trans>Your own script on the agent, or a webhook.</Trans>
        </Tile>
        <li className="flex flex-col items-start gap-1 rounded-xl p-4 ring-1 ring-dashed ring-slate-300 dark:ring-slate-700">
          <span className="font-semibold text-slate-900 dark:text-white">
            <Trans>Need something else?</Trans>
          </span>
          <a href={SUPPORT_URL} className="text-sm font-medium text-accent-800 underline dark:text-accent-300">
            <Trans>Contact support</Trans>
          </a>
        </li>
      </ul>
      <Dialog
        open={modules}
        onClose={() => setModules(false)}
        title={t`Knoc modules`}
        footer={
          <Button variant="primary" onClick={() => setModules(false)}>
            <Trans>Close</Trans>
          </Button>
        }
      >
        <p>
          <Trans>
            Knoc modules are {count} pre-packaged scripts for systems without a dedicated integration. Install a module
            on an agent, then create a Knoc for it with Custom script/API, naming the module's script as the command.
          </Trans>
        </p>
      </Dialog>
    </>
  );
}
