/**
 * The detail dialog of a Knoc (docs/reference.md admin-console §2 "Knocs": "Row click opens a detail dialog with
 * verification instructions"; "Query viewKnocId opens that Knoc's detail"): what the Knoc is (kind,
 * backend, agent, the details of its type, who has it, the allowlist URL of a passive one), then
 * how to check that it is enforced, and Edit.
 */
import type { ReactNode } from "react";
import { Link } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Knoc } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { Copyable } from "../../components/Copyable.tsx";
import { knocDetails, knocKindLabel } from "./knoc-labels.ts";
import { KnocVerification } from "./KnocVerification.tsx";
import { updateKnocPath } from "./update-path.ts";

function Row({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="grid grid-cols-3 gap-3 py-1.5">
      <dt className="font-medium text-slate-700 dark:text-slate-200">{label}</dt>
      <dd className="col-span-2 break-words text-slate-900 dark:text-slate-100">{children}</dd>
    </div>
  );
}

/** The open detail dialog of `knoc`. */
export function KnocDetailDialog({ knoc, onClose }: { knoc: Knoc; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const users = knoc.UserCount;
  const groups = knoc.GroupCount;
  return (
    <Dialog
      open
      onClose={onClose}
      title={knoc.Description}
      size="lg"
      footer={
        <>
          <Button onClick={onClose}>
            <Trans>Close</Trans>
          </Button>
          <Link
            to={updateKnocPath(knoc)}
            className="inline-flex items-center justify-center rounded-md bg-accent-700 px-3 py-2 text-sm font-semibold text-white shadow-sm hover:bg-accent-800"
          >
            <Trans>Edit</Trans>
          </Link>
        </>
      }
    >
      <dl className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="knoc-facts">
        <Row label={t`Type`}>{knocKindLabel(i18n, knoc)}</Row>
        <Row label={t`Backend`}>{knoc.BackendName}</Row>
        {knoc.AgentName ? <Row label={t`Agent`}>{knoc.AgentName}</Row> : null}
        {knocDetails(i18n, knoc).map((d) => (
          <Row key={d.field} label={d.label}>
            {d.value}
          </Row>
        ))}
        {knoc.URL ? <Row label={t`URL`}>{knoc.URL}</Row> : null}
        <Row label={t`Users`}>{users}</Row>
        <Row label={t`Groups`}>{groups}</Row>
      </dl>
      {knoc.AllowlistURL ? (
        <Copyable id="knoc-allowlist-url" label={t`Allowlist URL`} what={t`allowlist URL`} value={knoc.AllowlistURL} />
      ) : null}
      <div className="mt-5">
        <KnocVerification knoc={knoc} />
      </div>
    </Dialog>
  );
}
