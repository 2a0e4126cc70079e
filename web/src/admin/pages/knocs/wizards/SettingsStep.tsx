/**
 * The settings step of every wizard (docs/reference.md admin-console §2, §3 table, §4 defaults, §5): what users see
 * (Description — required — URL, Category, the icon picker) and the type's fields — Linux: the ipset
 * set names (a warning when the agent did not report the set); Proxy: HAProxy or knocproxy, protocol
 * and runtime API address (prefilled from the protocol until typed), the ACL ID or name; Script: the
 * command or webhook URL and the ACL name; Application: passive, passive+ (palo forced) or active
 * (vendor, fortinet by default) with the vendor's backend and ACL fields from the shared schemas.
 * Documentation links per type. Next validates with the shared rules.
 */
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { get } from "react-hook-form";
import { useSetAtom } from "jotai";
import { Trans, useLingui } from "@lingui/react/macro";
import { BACKEND_DESCRIPTORS } from "@postern/shared";
import type { ApplicationType, BackendType } from "@postern/shared";
import { CheckField, FormField, SelectField } from "../../../../ui/kit/FormField.tsx";
import { backendTypeLabel, configFieldLabel } from "../../../lib/backend-labels.ts";
import { configFields } from "../../../lib/config-fields.ts";
import { fieldErrorText } from "../../../lib/form-errors.ts";
import { agentQueries } from "../../../queries/agents.ts";
import { aclFieldLabel } from "./acl-field-labels.ts";
import { DOC_LINKS } from "./doc-links.ts";
import { IconPicker } from "./IconPicker.tsx";
import { useStepForm, watchPath } from "./use-step-form.ts";
import {
  ACTIVE_VENDOR_TYPES,
  applicationBackendType,
  initialAclConfig,
  initialBackendFields,
  proxyAddressPrefill,
} from "./wizard-defaults.ts";
import { SettingsStepSchema } from "./wizard-schemas.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import { wizardAtom } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** The ACL fields of a type as the form shows them: the schema's fields, ports (a number or a string) as text. */
function aclFields(type: BackendType): { name: string; kind: string; options?: readonly string[] }[] {
  const schema = BACKEND_DESCRIPTORS[type].aclSchema;
  const known = configFields(schema, []);
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const rest = Object.keys(shape)
    .filter((name) => !known.some((f) => f.name === name) && name !== "EnvVars")
    .map((name) => ({ name, kind: "text" }));
  return [...known, ...rest];
}

/** The settings step of `draft`. */
export function SettingsStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const setDraft = useSetAtom(wizardAtom);
  const agents = useQuery(agentQueries.header());
  const form = useStepForm("settings", SettingsStepSchema, draft);
  const errors = form.formState.errors;
  const err = (path: string): string | undefined => fieldErrorText(i18n, get(errors, path));
  const type = form.watch("Type") as BackendType;
  const applicationType = form.watch("ApplicationType") as ApplicationType | undefined;
  const agent = agents.data?.find((a) => a.ID === draft.agentId);
  const agentSocket = agent?.Capabilities.haproxy?.socket_location;
  const kind = draft.kind;

  // §4: until the admin types an address, it follows the protocol (and the chosen agent's socket).
  const protocol = watchPath<"unix" | "tcp" | undefined>(form, `Config.${type}.Protocol`);
  useEffect(() => {
    if ((type === "haproxy" || type === "knocproxy") && protocol && !draft.addressTyped)
      form.setValue(`Config.${type}.Address` as never, proxyAddressPrefill(protocol, agentSocket) as never);
  }, [type, protocol, agentSocket, draft.addressTyped, form]);

  const changeType = (next: BackendType): void => {
    form.setValue("Type" as never, next as never);
    form.setValue("Config" as never, { [next]: initialBackendFields(next, agentSocket) } as never);
    form.setValue("AclConfig" as never, initialAclConfig(next) as never);
    form.clearErrors();
  };
  const changeApplicationType = (next: ApplicationType): void => {
    form.setValue("ApplicationType" as never, next as never);
    const nextType = applicationBackendType(next, type);
    if (nextType !== type) changeType(nextType);
  };

  const submit = form.handleSubmit(() => nav.next());
  const v4 = watchPath<string | undefined>(form, "AclConfig.ipset.V4SetName");
  const v6 = watchPath<string | undefined>(form, "AclConfig.ipset.V6SetName");
  const knownSets = agent?.Capabilities.ipset?.ipsets.map((s) => s.name) ?? [];
  const undiscovered = [v4, v6].filter((n): n is string => !!n && n.trim() !== "" && !knownSets.includes(n.trim()));

  const field = (scope: "Config" | "AclConfig", f: { name: string; kind: string; options?: readonly string[] }) => {
    const path = `${scope}.${type}.${f.name}`;
    const label = scope === "Config" ? configFieldLabel(i18n, f.name) : aclFieldLabel(i18n, f.name);
    if (f.kind === "boolean") return <CheckField key={path} label={label} {...form.register(path as never)} />;
    if (f.kind === "enum")
      return (
        <SelectField
          key={path}
          label={label}
          error={err(path)}
          options={[{ value: "", label: t`Choose…` }, ...(f.options ?? []).map((o) => ({ value: o, label: o }))]}
          {...form.register(path as never)}
        />
      );
    return (
      <FormField
        key={path}
        label={label}
        type={f.kind === "secret" ? "password" : "text"}
        error={err(path)}
        {...form.register(path as never)}
      />
    );
  };

  const vendorFields = (): React.ReactNode => {
    if (type === "allowlist") return null;
    const descriptor = BACKEND_DESCRIPTORS[type];
    const hidden =
      applicationType === "passive+"
        ? ["GroupName", "MapUser"]
        : type === "panos"
          ? ["EDLName", "SerialNumber", "URL"]
          : [];
    return (
      <>
        {configFields(descriptor.backendSchema, descriptor.secretFields).map((f) => field("Config", f))}
        {aclFields(type)
          .filter((f) => !hidden.includes(f.name))
          .map((f) => field("AclConfig", f))}
      </>
    );
  };

  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField
          label={t`Description`}
          required
          autoFocus
          hint={t`The Knoc's name as users see it.`}
          error={err("Description")}
          {...form.register("Description" as never)}
        />
        <FormField
          label={t`URL`}
          hint={t`Where users go once granted (optional).`}
          error={err("URL")}
          {...form.register("URL" as never)}
        />
        <FormField label={t`Category`} error={err("Category")} {...form.register("Category" as never)} />
        <div className="sm:col-span-2">
          <IconPicker
            value={watchPath<string>(form, "Icon")}
            onChange={(url) => form.setValue("Icon" as never, url as never)}
          />
        </div>

        {kind === "linux" ? (
          <>
            {field("AclConfig", { name: "V4SetName", kind: "text" })}
            {field("AclConfig", { name: "V6SetName", kind: "text" })}
            {undiscovered.length > 0 ? (
              <p role="note" className="text-sm text-amber-900 sm:col-span-2 dark:text-amber-200">
                <Trans>
                  The agent did not report the set {undiscovered.join(", ")}. Sets must be created manually on the agent
                  before grants can be applied.
                </Trans>
              </p>
            ) : null}
          </>
        ) : null}

        {kind === "proxy" ? (
          <>
            <SelectField
              label={t`Proxy type`}
              value={type}
              onChange={(event) => changeType(event.target.value as BackendType)}
              options={[
                { value: "haproxy", label: backendTypeLabel(i18n, "haproxy") },
                { value: "knocproxy", label: backendTypeLabel(i18n, "knocproxy") },
              ]}
            />
            <SelectField
              label={configFieldLabel(i18n, "Protocol")}
              options={[
                { value: "unix", label: t`Unix socket` },
                { value: "tcp", label: "TCP" },
              ]}
              {...form.register(`Config.${type}.Protocol` as never)}
            />
            <FormField
              label={configFieldLabel(i18n, "Address")}
              required
              error={err(`Config.${type}.Address`)}
              {...form.register(`Config.${type}.Address` as never, {
                onChange: () => setDraft((d) => (d ? { ...d, addressTyped: true } : d)),
              })}
            />
            {type === "haproxy" ? (
              <FormField
                label={aclFieldLabel(i18n, "ID")}
                required
                inputMode="numeric"
                hint={t`The number HAProxy shows for the ACL in "show acl".`}
                error={err("AclConfig.haproxy.ID")}
                {...form.register("AclConfig.haproxy.ID" as never, {
                  setValueAs: (v: unknown) =>
                    v === "" || v === undefined || v === null
                      ? undefined
                      : typeof v === "string" && /^\d+$/.test(v.trim())
                        ? Number(v.trim())
                        : v,
                })}
              />
            ) : (
              <FormField
                label={aclFieldLabel(i18n, "Name")}
                required
                error={err("AclConfig.knocproxy.Name")}
                {...form.register("AclConfig.knocproxy.Name" as never)}
              />
            )}
          </>
        ) : null}

        {kind === "script" ? (
          <>
            <FormField
              label={configFieldLabel(i18n, "Command")}
              required
              hint={t`The full path of an executable on the agent, or an http or https webhook URL.`}
              error={err("Config.script.Command")}
              {...form.register("Config.script.Command" as never)}
            />
            <FormField
              label={aclFieldLabel(i18n, "Name")}
              required
              hint={t`Letters, digits, underscores and hyphens.`}
              error={err("AclConfig.script.Name")}
              {...form.register("AclConfig.script.Name" as never)}
            />
          </>
        ) : null}

        {kind === "application" ? (
          <>
            <fieldset className="sm:col-span-2">
              <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
                <Trans>Application type</Trans>
              </legend>
              <div className="space-y-1">
                {(
                  [
                    ["passive", t`Allowlist (Passive): the device reads a list of granted addresses from Postern.`],
                    ["passive+", t`Passive+: a Palo Alto firewall reads the list and Postern refreshes it.`],
                    ["active", t`Active: the agent pushes each grant to the device's API.`],
                  ] as const
                ).map(([value, text]) => (
                  <label key={value} className="flex items-center gap-2 text-sm text-slate-800 dark:text-slate-200">
                    <input
                      type="radio"
                      name="application-type"
                      className="size-4 accent-accent-700"
                      checked={applicationType === value}
                      onChange={() => changeApplicationType(value)}
                    />
                    {text}
                  </label>
                ))}
              </div>
            </fieldset>
            {applicationType === "active" ? (
              <SelectField
                label={t`Vendor`}
                value={type}
                onChange={(event) => changeType(event.target.value as BackendType)}
                options={ACTIVE_VENDOR_TYPES.map((v) => ({ value: v, label: backendTypeLabel(i18n, v) }))}
              />
            ) : null}
            {vendorFields()}
          </>
        ) : null}
      </div>

      <aside className="mt-6 text-sm" aria-label={t`Documentation`}>
        <h3 className="font-semibold text-slate-800 dark:text-slate-200">
          <Trans>Documentation</Trans>
        </h3>
        <ul className="mt-1 list-inside list-disc" data-testid="doc-links">
          {DOC_LINKS[type].map((link) => (
            <li key={link.href}>
              <a
                href={link.href}
                target="_blank"
                rel="noreferrer"
                className="font-medium text-accent-800 underline dark:text-accent-300"
              >
                {link.title}
              </a>
            </li>
          ))}
        </ul>
      </aside>
      <StepButtons onBack={nav.back} />
    </form>
  );
}
