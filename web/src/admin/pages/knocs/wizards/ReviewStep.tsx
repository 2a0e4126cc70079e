/**
 * The review and submit step (docs/reference.md admin-console §2 "Review shows settings, options, an agent preview and
 * an assignments preview (users, SAML groups, local groups). Sensitive environment values appear
 * masked; blank names are omitted"; §7 "Knoc creation is one shared operation"). Secret backend fields
 * are masked as well. Create Knoc sends POST /api/admin/knocs; the answer `[id, PlaintextKey?,
 * AllowlistURL?]` goes to the wizard's `onCreated`; a refusal opens the error dialog and the wizard
 * stays on this step.
 */
import { useQuery } from "@tanstack/react-query";
import { useLingui } from "@lingui/react/macro";
import type { ReactNode } from "react";
import { BACKEND_DESCRIPTORS, backendTypeOf } from "@postern/shared";
import { backendTypeLabel, configFieldLabel } from "../../../lib/backend-labels.ts";
import { useFeedback } from "../../../lib/feedback.ts";
import { knocIconOf } from "../../../lib/knoc-icons.ts";
import { agentQueries } from "../../../queries/agents.ts";
import { apiKeyQueries } from "../../../queries/api-keys.ts";
import { groupQueries } from "../../../queries/groups.ts";
import { useCreateKnoc } from "../../../queries/knocs.ts";
import { userQueries } from "../../../queries/users.ts";
import { aclFieldLabel } from "./acl-field-labels.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import { toCreateBody } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** What stands in for a secret or Sensitive value. */
export const MASK = "••••••••";

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="rounded-lg bg-white p-4 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
      <h3 className="mb-2 font-semibold text-slate-900 dark:text-white">{title}</h3>
      <dl className="grid grid-cols-[minmax(0,12rem)_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">{children}</dl>
    </section>
  );
}

function Row({ label, value }: { label: string; value: ReactNode }) {
  return (
    <>
      <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="break-words text-slate-900 dark:text-slate-100">{value}</dd>
    </>
  );
}

/** The review step of `draft`; `onCreated` receives the server's answer. */
export function ReviewStep({
  nav,
  draft,
  onCreated,
}: {
  nav: StepNav;
  draft: WizardDraft;
  onCreated: (result: string[]) => void;
}) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateKnoc();
  const agents = useQuery(agentQueries.header());
  const users = useQuery(userQueries.list());
  const groups = useQuery(groupQueries.list());
  const keys = useQuery(apiKeyQueries.list());
  const body = toCreateBody(draft);
  const ws = body.WizardState;
  const type = backendTypeOf(ws.form.Config);
  const descriptor = BACKEND_DESCRIPTORS[type];
  const backendFields = (ws.form.Config as Record<string, Record<string, unknown>>)[type] ?? {};
  const aclFields = (ws.form.AclConfig as unknown as Record<string, Record<string, unknown> | undefined>)[type] ?? {};
  const agent = agents.data?.find((a) => a.ID === ws.agentId);
  const yes = t`Yes`;
  const no = t`No`;
  const flag = (v: boolean): string => (v ? yes : no);
  const names = (ids: readonly string[], list: readonly { ID: string; Name: string }[] | undefined): string =>
    ids.map((id) => list?.find((x) => x.ID === id)?.Name ?? id).join(", ") || t`none`;
  const selectedGroups = groups.data?.filter((g) => ws.groupIds.includes(g.ID)) ?? [];
  const o = ws.knocOptionsForm;
  const minutes = o.MaximumGrantDuration === null ? null : o.MaximumGrantDuration / 60;
  const shown = (v: unknown): string => (typeof v === "boolean" ? flag(v) : String(v ?? ""));
  const iconName = knocIconOf(o.Icon)?.id ?? "";

  const submit = (): void =>
    create.mutate(
      body,
      feedback(t`Knoc created`, (result: string[]) => onCreated(result)),
    );

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      className="space-y-4"
      data-testid="review"
    >
      <Section title={t`Settings`}>
        <Row label={t`Description`} value={o.Description} />
        <Row label={t`URL`} value={o.URL || "—"} />
        <Row label={t`Category`} value={o.Category} />
        <Row label={t`Icon`} value={iconName || "—"} />
        <Row label={t`Type`} value={backendTypeLabel(i18n, type)} />
        {Object.entries(backendFields)
          .filter(([name]) => name !== "EnvVars")
          .map(([name, value]) => (
            <Row
              key={`b-${name}`}
              label={configFieldLabel(i18n, name)}
              value={descriptor.secretFields.includes(name) && value !== "" ? MASK : shown(value) || "—"}
            />
          ))}
        {Object.entries(aclFields)
          .filter(([name]) => name !== "EnvVars")
          .map(([name, value]) => (
            <Row key={`a-${name}`} label={aclFieldLabel(i18n, name)} value={shown(value) || "—"} />
          ))}
      </Section>
      <Section title={t`Knoc options`}>
        <Row label={t`Click to grant`} value={flag(o.ClickToGrant)} />
        <Row label={t`Additional client IP addresses`} value={flag(o.CGNATOpen)} />
        <Row label={t`Hide from users`} value={flag(o.HideFromUsers)} />
        <Row label={t`Auto-browse`} value={flag(o.AutoBrowseUsers)} />
        <Row label={t`Maximum grant duration`} value={minutes === null ? t`Unlimited` : t`${minutes} minutes`} />
        <Row
          label={t`IP restriction`}
          value={`${o.IpExclusions.RestrictionType}${o.IpExclusions.Ranges.length > 0 ? `: ${o.IpExclusions.Ranges.map((r) => `${r.Start}–${r.End}`).join(", ")}` : ""}`}
        />
        <Row
          label={t`Grant applies to`}
          value={o.GrantType.Type === "userIp" ? t`The user's IP address` : o.GrantType.Ips.map((i) => i.Ip).join(", ")}
        />
      </Section>
      {descriptor.agentless && type === "allowlist" ? null : (
        <Section title={t`Agent`}>
          <Row label={t`Name`} value={agent?.Name ?? "—"} />
          <Row label={t`Version`} value={agent?.Version || "—"} />
          <Row label={t`IP address`} value={agent?.ExternalIP || "—"} />
        </Section>
      )}
      {draft.kind === "application" && (draft.settings.ApplicationType ?? "passive") !== "active" ? (
        <Section title={t`API key`}>
          <Row
            label={t`Access to the allowlist`}
            value={
              ws.apiKeyOption === "new"
                ? t`New API key ${ws.apiKeyForm.Name}`
                : ws.apiKeyOption === "existing"
                  ? t`Existing API key ${keys.data?.find((k) => k.ID === ws.existingApiKey)?.Name ?? ""}`
                  : t`No API key: by source address only`
            }
          />
        </Section>
      ) : null}
      {draft.kind === "script" ? (
        <Section title={t`Environment variables`}>
          {ws.envVarsForm.length === 0 ? <Row label={t`Variables`} value={t`none`} /> : null}
          {ws.envVarsForm.map((v) => (
            <Row key={v.Name} label={v.Name} value={v.Sensitive ? MASK : v.Value} />
          ))}
        </Section>
      ) : null}
      <Section title={t`Assignments`}>
        <Row label={t`Users`} value={names(ws.userIds, users.data)} />
        <Row
          label={t`SAML groups`}
          value={names(
            selectedGroups.filter((g) => g.Type === "saml").map((g) => g.ID),
            groups.data,
          )}
        />
        <Row
          label={t`Local groups`}
          value={names(
            selectedGroups.filter((g) => g.Type !== "saml").map((g) => g.ID),
            groups.data,
          )}
        />
      </Section>
      <StepButtons onBack={nav.back} nextLabel={t`Create Knoc`} busy={create.isPending} />
    </form>
  );
}
