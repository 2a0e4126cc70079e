/**
 * API keys (docs/reference.md admin-console §2 "API keys", §3, §5 "API key", §9): a sortable, searchable table (name,
 * allows access to, age, expires, last used, allowed from, actions Edit and Delete) and Create API
 * key. The form validates with the shared ApiKeyCreateSchema: Name, what the key is for (reading
 * chosen allowlists, registering agents, managing user sessions), the expiry (12 months, 24
 * months, never) and the allowed-from list (prefix and note; default the whole Internet). After
 * creation the plaintext key is shown once, to copy. Editing changes only the allowed-from list.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useFieldArray, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApiKeyCreateSchema, DEFAULT_ALLOWED_FROM } from "@postern/shared";
import type { ApiKey, ApiKeyCreate } from "@postern/shared";
import type { z } from "zod";
import { Button } from "../../ui/kit/Button.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { Dialog } from "../../ui/kit/Dialog.tsx";
import { CheckField, FormField, SelectField } from "../../ui/kit/FormField.tsx";
import { Copyable } from "../components/Copyable.tsx";
import { FormDialog } from "../../ui/kit/FormDialog.tsx";
import { DeleteConfirm } from "../components/MutationConfirm.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionsColumn, textColumn } from "../lib/columns.tsx";
import { useFeedback } from "../lib/feedback.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { relativeTime } from "../lib/relative-time.ts";
import { aclQueries } from "../queries/acls.ts";
import { apiKeyQueries, useCreateApiKey, useDeleteApiKey, useUpdateApiKey } from "../queries/api-keys.ts";

type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "edit"; key: ApiKey }
  | { kind: "created"; key: ApiKey }
  | { kind: "delete"; key: ApiKey };

type KeyFormInput = z.input<typeof ApiKeyCreateSchema>;
/** What a new key is for; each maps to its scopes. */
type Purpose = "allowlists" | "agent" | "sessions";
/** Expiry choices (docs/reference.md admin-console §9): months from now, or never. */
type Expiry = "12" | "24" | "never";

/** ExpiredAfter of an expiry choice, `now` in ms. */
function expiryDate(expiry: Expiry, now: number): string | null {
  if (expiry === "never") return null;
  const at = new Date(now);
  at.setMonth(at.getMonth() + Number(expiry));
  return at.toISOString();
}

function KeyForm({
  apiKey,
  onClose,
  onCreated,
}: {
  apiKey: ApiKey | undefined;
  onClose: () => void;
  onCreated: (k: ApiKey) => void;
}) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateApiKey();
  const update = useUpdateApiKey();
  const acls = useQuery(aclQueries.list());
  const editing = apiKey !== undefined;
  const [purpose, setPurpose] = useState<Purpose>("allowlists");
  const [expiry, setExpiry] = useState<Expiry>("12");
  const [allowlists, setAllowlists] = useState<string[]>([]);
  const form = useForm<KeyFormInput, unknown, ApiKeyCreate>({
    resolver: zodResolver(ApiKeyCreateSchema),
    defaultValues: {
      Name: apiKey?.Name ?? "",
      Scopes: [],
      AllowedFrom: apiKey ? apiKey.AllowedFrom : DEFAULT_ALLOWED_FROM.map((e) => ({ ...e })),
      ExpiredAfter: null,
    },
  });
  const rows = useFieldArray({ control: form.control, name: "AllowedFrom" });
  const allowlistAcls = acls.data?.filter((a) => "allowlist" in a.Config) ?? [];
  const errors = form.formState.errors;

  const submit = form.handleSubmit((values) => {
    if (apiKey) {
      update.mutate({ ID: apiKey.ID, AllowedFrom: values.AllowedFrom }, feedback(t`API Key updated`, onClose));
      return;
    }
    const scopes =
      purpose === "agent"
        ? ["agent.register"]
        : purpose === "sessions"
          ? ["user.sessions"]
          : allowlists.map((id) => `allowlist.read:${id}`);
    create.mutate(
      { ...values, Scopes: scopes as ApiKeyCreate["Scopes"], ExpiredAfter: expiryDate(expiry, Date.now()) },
      feedback(t`API key created`, onCreated),
    );
  });

  return (
    <FormDialog
      title={editing ? t`Edit API key` : t`Create API key`}
      size="lg"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField
        label={t`Name`}
        required
        autoFocus={!editing}
        disabled={editing}
        error={fieldErrorText(i18n, errors.Name)}
        {...form.register("Name")}
      />
      {editing ? null : (
        <>
          <SelectField
            label={t`Allows access to`}
            value={purpose}
            onChange={(event) => setPurpose(event.target.value as Purpose)}
            options={[
              { value: "allowlists", label: t`Read allowlists` },
              { value: "agent", label: t`Register agents` },
              { value: "sessions", label: t`Manage user sessions` },
            ]}
          />
          {purpose === "allowlists" ? (
            <fieldset>
              <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
                <Trans>Allowlists</Trans>
              </legend>
              {allowlistAcls.length === 0 ? (
                <p className="text-sm">
                  <Trans>You must create an allowlist before you can create an API key</Trans>
                </p>
              ) : null}
              {allowlistAcls.map((acl) => (
                <CheckField
                  key={acl.ID}
                  label={acl.Description}
                  checked={allowlists.includes(acl.ID)}
                  onChange={(event) =>
                    setAllowlists((list) =>
                      event.target.checked ? [...list, acl.ID] : list.filter((id) => id !== acl.ID),
                    )
                  }
                />
              ))}
            </fieldset>
          ) : null}
          <SelectField
            label={t`Expires`}
            value={expiry}
            onChange={(event) => setExpiry(event.target.value as Expiry)}
            options={[
              { value: "12", label: t`12 months` },
              { value: "24", label: t`24 months` },
              { value: "never", label: t`Never` },
            ]}
          />
        </>
      )}
      <fieldset className="space-y-2">
        <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
          <Trans>Allowed from</Trans>
        </legend>
        {rows.fields.map((field, index) => {
          const n = index + 1;
          return (
            <div key={field.id} className="grid grid-cols-[1fr_1fr_auto] items-start gap-2">
              <FormField
                label={t`Prefix ${n}`}
                error={fieldErrorText(i18n, errors.AllowedFrom?.[index]?.Prefix)}
                {...form.register(`AllowedFrom.${index}.Prefix`)}
              />
              <FormField label={t`Note ${n}`} {...form.register(`AllowedFrom.${index}.Note`)} />
              <Button variant="quiet" className="mt-6" onClick={() => rows.remove(index)}>
                <Trans>Remove {n}</Trans>
              </Button>
            </div>
          );
        })}
        <Button onClick={() => rows.append({ Prefix: "", Note: "" })}>
          <Trans>Add prefix</Trans>
        </Button>
      </fieldset>
    </FormDialog>
  );
}

/** The API keys page. */
export function ApiKeysPage() {
  const { t, i18n } = useLingui();
  const keys = useQuery(apiKeyQueries.list());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteApiKey();
  const now = Date.now();
  const openName = "key" in open ? open.key.Name : "";

  const columns: Column<ApiKey>[] = [
    textColumn("name", t`Name`, (k) => k.Name),
    {
      id: "resources",
      header: t`Allows access to`,
      searchText: (k) => k.Resources.join(" "),
      cell: (k) => k.Resources.join(", "),
    },
    {
      id: "age",
      header: t`Age`,
      sortValue: (k) => Date.parse(k.CreatedAt),
      cell: (k) => relativeTime(k.CreatedAt, now, i18n.locale),
    },
    {
      id: "expires",
      header: t`Expires`,
      cell: (k) => (k.ExpiredAfter ? new Date(k.ExpiredAfter).toLocaleDateString(i18n.locale) : t`Never`),
    },
    {
      id: "used",
      header: t`Last used`,
      cell: (k) => (k.LastUsedAt ? relativeTime(k.LastUsedAt, now, i18n.locale) : t`never`),
    },
    {
      id: "from",
      header: t`Allowed from`,
      searchText: (k) => k.AllowedFrom.map((a) => a.Prefix).join(" "),
      cell: (k) => k.AllowedFrom.map((a) => a.Prefix).join(", "),
    },
    actionsColumn(
      t`Actions`,
      (k) => k.Name,
      (k) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", key: k }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", key: k }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`API keys`}
        actions={
          <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
            <Trans>Create API key</Trans>
          </Button>
        }
      />
      <DataTable
        label={t`API keys`}
        testId="api-keys-table"
        searchable
        columns={columns}
        rows={keys.data}
        rowKey={(k) => k.ID}
        defaultSort={{ id: "name" }}
        empty={<Trans>No API keys yet.</Trans>}
      />
      {open.kind === "create" ? (
        <KeyForm apiKey={undefined} onClose={close} onCreated={(key) => setOpen({ kind: "created", key })} />
      ) : null}
      {open.kind === "edit" ? <KeyForm apiKey={open.key} onClose={close} onCreated={close} /> : null}
      {open.kind === "created" ? (
        <Dialog
          open
          onClose={close}
          size="lg"
          title={t`Your new API key`}
          footer={
            <Button variant="primary" onClick={close}>
              <Trans>Done</Trans>
            </Button>
          }
        >
          <p>
            <Trans>Copy the key now: it is shown only once.</Trans>
          </p>
          <Copyable id="plaintext-key" label={t`API key`} what={t`API key`} value={open.key.PlaintextKey ?? ""} />
        </Dialog>
      ) : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete API key`}
          success={t`API key deleted`}
          name={openName}
          mutation={remove}
          variables={open.key.ID}
          onClose={close}
        />
      ) : null}
    </>
  );
}
