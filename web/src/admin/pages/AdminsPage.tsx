/**
 * Admins (docs/reference.md admin-console §2 "Admins", §5 "Admin", §6, §8): a sortable, searchable table (name, auth
 * type, username with a DISABLED marker when login is off, last login); row actions View
 * (sessions, each can be ended), Edit, Reset 2FA (only with TOTP on or a passkey; the server refuses it for
 * oneself), Delete; Invalidate all admin sessions (this one too: back to admin login) and Create
 * admin on top. The form validates with the shared AdminWriteSchema; the username follows the
 * name until focused.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { AdminWriteSchema } from "@postern/shared";
import type { Admin, AdminWrite } from "@postern/shared";
import type { z } from "zod";
import { Button } from "../../ui/kit/Button.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { Dialog } from "../../ui/kit/Dialog.tsx";
import { CheckField, FormField, SelectField } from "../../ui/kit/FormField.tsx";
import { FormDialog } from "../../ui/kit/FormDialog.tsx";
import { PasswordFields, withPasswordConfirmation } from "../components/PasswordFields.tsx";
import { DeleteConfirm, MutationConfirm } from "../components/MutationConfirm.tsx";
import { ResetTwoFactorConfirm } from "../components/ResetTwoFactorConfirm.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionsColumn, textColumn } from "../lib/columns.tsx";
import { useFeedback } from "../lib/feedback.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { relativeTime } from "../lib/relative-time.ts";
import { useUsernameAutofill } from "../lib/username.ts";
import {
  adminQueries,
  useCreateAdmin,
  useDeleteAdmin,
  useDeleteAdminSession,
  useInvalidateAdminSessions,
  useResetAdmin2fa,
  useUpdateAdmin,
} from "../queries/admins.ts";

type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "edit"; admin: Admin }
  | { kind: "view"; admin: Admin }
  | { kind: "delete"; admin: Admin }
  | { kind: "reset"; admin: Admin }
  | { kind: "invalidate" };

/** The shared schema plus the confirmation matching the password (server: err.passwordsDontMatch). */
const AdminFormSchema = withPasswordConfirmation(AdminWriteSchema);
type AdminFormInput = z.input<typeof AdminFormSchema>;

function AdminForm({ admin, onClose }: { admin: Admin | undefined; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateAdmin();
  const update = useUpdateAdmin();
  const editing = admin !== undefined;
  const form = useForm<AdminFormInput, unknown, AdminWrite>({
    resolver: zodResolver(AdminFormSchema),
    defaultValues: admin
      ? {
          Name: admin.Name,
          UserName: admin.UserName,
          AuthType: admin.AuthType,
          TOTPEnabled: admin.TOTPEnabled,
          LoginEnabled: admin.LoginEnabled,
          ThirdPartyAuth: admin.ThirdPartyAuth,
        }
      : { Name: "", UserName: "", AuthType: "local", TOTPEnabled: false, LoginEnabled: true },
  });
  const onUserNameFocus = useUsernameAutofill(form, !editing);
  const authType = form.watch("AuthType");
  const errors = form.formState.errors;
  const err = (e: Parameters<typeof fieldErrorText>[1]) => fieldErrorText(i18n, e);
  const submit = form.handleSubmit((values) => {
    if (admin) update.mutate({ ...values, ID: admin.ID }, feedback(t`Admin updated`, onClose));
    else create.mutate(values, feedback(t`Admin created`, onClose));
  });
  return (
    <FormDialog
      title={editing ? t`Edit admin` : t`Create admin`}
      size="lg"
      layout="grid"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField label={t`Name`} required autoFocus error={err(errors.Name)} {...form.register("Name")} />
      <FormField
        label={t`Username`}
        required
        disabled={editing}
        error={err(errors.UserName)}
        {...form.register("UserName")}
        onFocus={onUserNameFocus}
      />
      <SelectField
        label={t`Auth type`}
        options={[
          { value: "local", label: t`Local` },
          { value: "SAML", label: "SAML" },
          { value: "LDAP", label: "LDAP" },
        ]}
        {...form.register("AuthType")}
      />
      {authType === "LDAP" ? <FormField label="DN" {...form.register("ThirdPartyAuth.DN")} /> : <span />}
      {authType === "local" ? <PasswordFields form={form} editing={editing} /> : null}
      <CheckField label={t`Two-factor authentication`} {...form.register("TOTPEnabled")} />
      <CheckField label={t`Login enabled`} {...form.register("LoginEnabled")} />
    </FormDialog>
  );
}

function ViewAdmin({ admin, onClose }: { admin: Admin; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const sessions = useQuery(adminQueries.sessions(admin.ID));
  const end = useDeleteAdminSession();
  const feedback = useFeedback();
  const name = admin.Name;
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t`Admin ${name}`}
      footer={
        <Button variant="primary" onClick={onClose}>
          <Trans>Close</Trans>
        </Button>
      }
    >
      <DataTable
        label={t`Sessions`}
        rows={sessions.data}
        rowKey={(s) => s.ID}
        empty={<Trans>No active session.</Trans>}
        columns={[
          { id: "created", header: t`Started`, cell: (s) => new Date(s.Created).toLocaleString(i18n.locale) },
          { id: "ip", header: t`IP address`, cell: (s) => s.IPAddress },
          {
            id: "end",
            header: t`Actions`,
            srOnlyHeader: true,
            cell: (s) => (
              <Button
                variant="quiet"
                onClick={() =>
                  end.mutate(
                    s.ID,
                    feedback(t`Session deleted`, () => void sessions.refetch()),
                  )
                }
              >
                <Trans>End session</Trans>
              </Button>
            ),
          },
        ]}
      />
    </Dialog>
  );
}

/** The admins page. */
export function AdminsPage() {
  const { t, i18n } = useLingui();
  const admins = useQuery(adminQueries.list());
  const navigate = useNavigate();
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteAdmin();
  const reset = useResetAdmin2fa();
  const invalidate = useInvalidateAdminSessions();
  const now = Date.now();
  const openName = "admin" in open ? open.admin.Name : "";
  const authLabel = (a: Admin): string => (a.AuthType === "local" ? t`Local` : a.AuthType);

  const columns: Column<Admin>[] = [
    textColumn("name", t`Name`, (a) => a.Name),
    { id: "auth", header: t`Auth type`, sortValue: (a) => a.AuthType, searchText: authLabel, cell: authLabel },
    {
      id: "username",
      header: t`Username`,
      sortValue: (a) => a.UserName.toLowerCase(),
      searchText: (a) => a.UserName,
      cell: (a) => (
        <span className="flex items-center gap-2">
          {a.UserName}
          {a.LoginEnabled ? null : (
            <span
              data-testid="login-disabled"
              className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-semibold text-red-900 dark:bg-red-950 dark:text-red-100"
            >
              <Trans>DISABLED</Trans>
            </span>
          )}
        </span>
      ),
    },
    {
      id: "login",
      header: t`Last login`,
      sortValue: (a) => (a.LastLogin ? Date.parse(a.LastLogin) : 0),
      cell: (a) => (a.LastLogin ? relativeTime(a.LastLogin, now, i18n.locale) : t`never`),
    },
    actionsColumn(
      t`Actions`,
      (a) => a.UserName,
      (a) => [
        { label: t`View`, onSelect: () => setOpen({ kind: "view", admin: a }) },
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", admin: a }) },
        (a.TOTPEnabled || a.Passkeys > 0) && {
          label: t`Reset 2FA`,
          onSelect: () => setOpen({ kind: "reset", admin: a }),
        },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", admin: a }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Admins`}
        actions={
          <>
            <Button onClick={() => setOpen({ kind: "invalidate" })}>
              <Trans>Invalidate all admin sessions</Trans>
            </Button>
            <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
              <Trans>Create admin</Trans>
            </Button>
          </>
        }
      />
      <DataTable
        label={t`Admins`}
        testId="admins-table"
        searchable
        columns={columns}
        rows={admins.data}
        rowKey={(a) => a.ID}
        rowProps={(a) => ({ "data-admin-id": a.ID })}
        defaultSort={{ id: "name" }}
        empty={<Trans>No admins.</Trans>}
      />
      {open.kind === "create" ? <AdminForm admin={undefined} onClose={close} /> : null}
      {open.kind === "edit" ? <AdminForm admin={open.admin} onClose={close} /> : null}
      {open.kind === "view" ? <ViewAdmin admin={open.admin} onClose={close} /> : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete admin`}
          success={t`Admin deleted`}
          name={openName}
          mutation={remove}
          variables={open.admin.ID}
          onClose={close}
        />
      ) : null}
      {open.kind === "reset" ? <ResetTwoFactorConfirm account={open.admin} mutation={reset} onClose={close} /> : null}
      {open.kind === "invalidate" ? (
        <MutationConfirm
          title={t`Invalidate all admin sessions`}
          confirmLabel={t`Invalidate all admin sessions`}
          success={t`All admin sessions invalidated`}
          mutation={invalidate}
          variables={undefined}
          onClose={close}
          onDone={() => void navigate({ to: "/admin", replace: true })}
        >
          <Trans>Every admin is signed out, you too.</Trans>
        </MutationConfirm>
      ) : null}
    </>
  );
}
