/**
 * Users (docs/reference.md admin-console §2 "Users", §4, §5 "User", §8): a sortable, searchable table (name,
 * company, session duration, auth type, username, last login, active session), refreshed every
 * 30 s; users beyond the licence greyed with "This user is disabled due to license restrictions";
 * row actions View (sessions — each can be ended — groups, ACLs), Edit (not for SAML users, who
 * are created at their first login), Reset 2FA (only with TOTP on or a passkey), Delete; Invalidate all
 * sessions and Create user on top; a notice when the user count exceeds the licence. The form
 * validates with the shared UserWriteSchema; the username follows the name until focused.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { UserWriteSchema, Errors } from "@postern/shared";
import type { User, UserWrite } from "@postern/shared";
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
import { translateAdminMessage } from "../lib/errors.ts";
import { actionsColumn, textColumn } from "../lib/columns.tsx";
import { useFeedback } from "../lib/feedback.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { relativeTime } from "../lib/relative-time.ts";
import { useUsernameAutofill } from "../lib/username.ts";
import { statusQueries } from "../queries/status.ts";
import {
  useCreateUser,
  useDeleteUser,
  useDeleteUserSession,
  useInvalidateUserSessions,
  useResetUser2fa,
  useUpdateUser,
  userQueries,
} from "../queries/users.ts";

type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "edit"; user: User }
  | { kind: "view"; user: User }
  | { kind: "delete"; user: User }
  | { kind: "reset"; user: User }
  | { kind: "invalidate" };

/** The form's schema: the shared one, plus the confirmation matching the password (server: err.passwordsDontMatch). */
const UserFormSchema = withPasswordConfirmation(UserWriteSchema);
type UserFormInput = z.input<typeof UserFormSchema>;

const numberOrNull = (v: unknown) => (v === "" || v === null ? null : Number(v));

/** The create/edit user dialog (also opened in place by the Knoc wizards' users step). */
export function UserForm({ user, onClose }: { user: User | undefined; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateUser();
  const update = useUpdateUser();
  const editing = user !== undefined;
  const form = useForm<UserFormInput, unknown, UserWrite>({
    resolver: zodResolver(UserFormSchema),
    defaultValues: user
      ? {
          Name: user.Name,
          UserName: user.UserName,
          Company: user.Company,
          Duration: user.Duration,
          SessionLimit: user.SessionLimit,
          AuthType: user.AuthType,
          TOTPEnabled: user.TOTPEnabled,
          ValidUntil: user.ValidUntil,
          ThirdPartyAuth: user.ThirdPartyAuth,
          AclIds: user.AclIds,
        }
      : {
          Name: "",
          UserName: "",
          Company: "",
          Duration: 480,
          SessionLimit: null,
          AuthType: "local",
          TOTPEnabled: false,
        },
  });
  const onUserNameFocus = useUsernameAutofill(form, !editing);
  const authType = form.watch("AuthType");
  const errors = form.formState.errors;
  const err = (e: Parameters<typeof fieldErrorText>[1]) => fieldErrorText(i18n, e);

  const submit = form.handleSubmit((values) => {
    if (user) update.mutate({ ...values, ID: user.ID }, feedback(t`User updated`, onClose));
    else create.mutate(values, feedback(t`User created`, onClose));
  });

  return (
    <FormDialog
      title={editing ? t`Edit user` : t`Create user`}
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
      <FormField label={t`Company`} error={err(errors.Company)} {...form.register("Company")} />
      <SelectField
        label={t`Auth type`}
        disabled={editing}
        options={[
          { value: "local", label: t`Local` },
          { value: "LDAP", label: "LDAP" },
          { value: "SAML", label: "SAML" },
          { value: "apikey", label: t`API key` },
        ]}
        {...form.register("AuthType")}
      />
      {authType === "local" ? <PasswordFields form={form} editing={editing} /> : null}
      {authType === "LDAP" ? (
        <FormField label="DN" required error={err(errors.ThirdPartyAuth?.DN)} {...form.register("ThirdPartyAuth.DN")} />
      ) : null}
      {authType === "SAML" ? (
        <p role="note" className="text-sm text-amber-900 sm:col-span-2 dark:text-amber-200">
          <Trans>SAML users are created at their first sign-in and cannot be edited here.</Trans>
        </p>
      ) : null}
      <FormField
        label={t`Session duration (minutes)`}
        type="number"
        required
        min={1}
        error={err(errors.Duration)}
        {...form.register("Duration", { valueAsNumber: true })}
      />
      <FormField
        label={t`Session limit`}
        type="number"
        min={1}
        hint={t`Empty for the licence's limit.`}
        error={err(errors.SessionLimit)}
        {...form.register("SessionLimit", { setValueAs: numberOrNull })}
      />
      {authType !== "SAML" ? (
        <CheckField label={t`Two-factor authentication`} {...form.register("TOTPEnabled")} />
      ) : null}
    </FormDialog>
  );
}

function ViewUser({ user, onClose }: { user: User; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const sessions = useQuery(userQueries.sessions(user.ID));
  const groups = useQuery(userQueries.groups(user.ID));
  const acls = useQuery(userQueries.acls(user.ID));
  const endSession = useDeleteUserSession();
  const feedback = useFeedback();
  const name = user.Name;
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t`User ${name}`}
      footer={
        <Button variant="primary" onClick={onClose}>
          <Trans>Close</Trans>
        </Button>
      }
    >
      <h3 className="font-semibold">
        <Trans>Sessions</Trans>
      </h3>
      <DataTable
        label={t`Sessions`}
        rows={sessions.data}
        rowKey={(s) => s.ID}
        empty={<Trans>No active session.</Trans>}
        columns={[
          { id: "created", header: t`Started`, cell: (s) => new Date(s.Created).toLocaleString(i18n.locale) },
          { id: "ends", header: t`Ends`, cell: (s) => new Date(s.Ends).toLocaleString(i18n.locale) },
          {
            id: "end",
            header: t`Actions`,
            srOnlyHeader: true,
            cell: (s) => (
              <Button
                variant="quiet"
                busy={endSession.isPending && endSession.variables === s.ID}
                onClick={() =>
                  endSession.mutate(
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
      <h3 className="mt-4 font-semibold">
        <Trans>Groups</Trans>
      </h3>
      <p data-testid="user-groups">{groups.data ? groups.data.map((g) => g.Name).join(", ") || t`none` : "…"}</p>
      <h3 className="mt-4 font-semibold">
        <Trans>ACLs</Trans>
      </h3>
      <ul data-testid="user-acls" className="list-inside list-disc">
        {acls.data?.map((a) => (
          <li key={a.ID}>
            {a.Description}
            {a.Direct ? "" : ` (${a.Groups.map((g) => g.Name).join(", ")})`}
          </li>
        ))}
      </ul>
      {acls.data?.length === 0 ? <p>{t`none`}</p> : null}
    </Dialog>
  );
}

/** The users page. */
export function UsersPage() {
  const { t, i18n } = useLingui();
  const users = useQuery(userQueries.page());
  const status = useQuery(statusQueries.header());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteUser();
  const reset = useResetUser2fa();
  const invalidate = useInvalidateUserSessions();
  const now = Date.now();
  const openName = "user" in open ? open.user.Name : "";
  const licensing = status.data?.Licensing;
  const over = licensing && status.data ? status.data.UserCount > licensing.UserLimit : false;
  const userCount = status.data?.UserCount ?? 0;
  const userLimit = licensing?.UserLimit ?? 0;
  const authLabel = (u: User): string =>
    u.AuthType === "local" ? t`Local` : u.AuthType === "apikey" ? t`API key` : u.AuthType;
  const disabledText = t`This user is disabled due to license restrictions`;

  const columns: Column<User>[] = [
    {
      id: "name",
      header: t`Name`,
      sortValue: (u) => u.Name.toLowerCase(),
      searchText: (u) => u.Name,
      cell: (u) =>
        u.Licensed ? (
          u.Name
        ) : (
          <span className="tooltip" data-tooltip={disabledText}>
            {u.Name}
            <span className="sr-only"> ({disabledText})</span>
          </span>
        ),
    },
    textColumn("company", t`Company`, (u) => u.Company),
    {
      id: "duration",
      header: t`Session duration`,
      sortValue: (u) => u.Duration,
      cell: (u) => {
        const minutes = u.Duration;
        return t`${minutes} min`;
      },
    },
    { id: "auth", header: t`Auth type`, sortValue: (u) => u.AuthType, searchText: authLabel, cell: authLabel },
    textColumn("username", t`Username`, (u) => u.UserName),
    {
      id: "login",
      header: t`Last login`,
      sortValue: (u) => (u.LastLogin ? Date.parse(u.LastLogin) : 0),
      cell: (u) => (u.LastLogin ? relativeTime(u.LastLogin, now, i18n.locale) : t`never`),
    },
    { id: "active", header: t`Active session`, cell: (u) => (u.ActiveSession ? t`yes` : t`no`) },
    actionsColumn(
      t`Actions`,
      (u) => u.UserName,
      (u) => [
        { label: t`View`, onSelect: () => setOpen({ kind: "view", user: u }) },
        u.AuthType !== "SAML" && { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", user: u }) },
        (u.TOTPEnabled || u.Passkeys > 0) && {
          label: t`Reset 2FA`,
          onSelect: () => setOpen({ kind: "reset", user: u }),
        },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", user: u }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Users`}
        actions={
          <>
            <Button onClick={() => setOpen({ kind: "invalidate" })}>
              <Trans>Invalidate all sessions</Trans>
            </Button>
            <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
              <Trans>Create user</Trans>
            </Button>
          </>
        }
      />
      {over && licensing && status.data ? (
        <p
          role="status"
          data-testid="user-limit-notice"
          className="mb-4 rounded-md bg-amber-100 px-4 py-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
        >
          {status.data.UserCount >= licensing.UserLimit + licensing.UserLimitOverage
            ? translateAdminMessage(i18n, Errors.userLimitReached.err)
            : t`The user count (${userCount}) exceeds the licensed limit of ${userLimit}.`}
        </p>
      ) : null}
      <DataTable
        label={t`Users`}
        testId="users-table"
        searchable
        columns={columns}
        rows={users.data}
        rowKey={(u) => u.ID}
        rowProps={(u) => ({
          "data-user-id": u.ID,
          "data-licensed": String(u.Licensed),
          className: u.Licensed
            ? undefined
            : "bg-slate-100 italic dark:bg-slate-900 [&>td]:text-slate-600 dark:[&>td]:text-slate-400",
        })}
        defaultSort={{ id: "name" }}
        empty={<Trans>No users yet.</Trans>}
      />
      {open.kind === "create" ? <UserForm user={undefined} onClose={close} /> : null}
      {open.kind === "edit" ? <UserForm user={open.user} onClose={close} /> : null}
      {open.kind === "view" ? <ViewUser user={open.user} onClose={close} /> : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete user`}
          success={t`User deleted`}
          name={openName}
          mutation={remove}
          variables={open.user.ID}
          onClose={close}
        />
      ) : null}
      {open.kind === "reset" ? <ResetTwoFactorConfirm account={open.user} mutation={reset} onClose={close} /> : null}
      {open.kind === "invalidate" ? (
        <MutationConfirm
          title={t`Invalidate all sessions`}
          confirmLabel={t`Invalidate all sessions`}
          success={t`All user sessions invalidated`}
          mutation={invalidate}
          variables={undefined}
          onClose={close}
        >
          <Trans>Every user is signed out and their access is revoked.</Trans>
        </MutationConfirm>
      ) : null}
    </>
  );
}
