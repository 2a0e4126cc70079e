/**
 * The users and groups step (docs/reference.md admin-console §2 "Common wizard parts"): a sortable table of users
 * (Name, Company, UserName, LastLogin relative) with a checkbox each, an empty message and Create
 * user, which opens the users page's dialog in place (the list refreshes after creation; SAML users
 * are not listed); then separate sortable tables of SAML groups and local groups (Name, Description,
 * user count), or a notice linking to /admin/groups when there are none. The selection is the
 * draft's userIds and groupIds.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useSetAtom } from "jotai";
import { Link } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Group, User } from "@postern/shared";
import { Button } from "../../../../ui/kit/Button.tsx";
import { DataTable } from "../../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../../ui/kit/DataTable.tsx";
import { textColumn } from "../../../lib/columns.tsx";
import { relativeTime } from "../../../lib/relative-time.ts";
import { groupQueries } from "../../../queries/groups.ts";
import { userQueries } from "../../../queries/users.ts";
import { UserForm } from "../../UsersPage.tsx";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import { wizardAtom } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** A checkbox column choosing rows by id. */
function selectColumn<T extends { ID: string; Name: string }>(
  header: string,
  label: (row: T) => string,
  selected: readonly string[],
  toggle: (id: string) => void,
): Column<T> {
  return {
    id: "select",
    header,
    srOnlyHeader: true,
    cell: (row) => (
      <input
        type="checkbox"
        className="size-4 rounded accent-accent-700"
        aria-label={label(row)}
        checked={selected.includes(row.ID)}
        onChange={() => toggle(row.ID)}
      />
    ),
  };
}

const toggled = (list: readonly string[], id: string): string[] =>
  list.includes(id) ? list.filter((x) => x !== id) : [...list, id];

/** The users and groups step of `draft`. */
export function AssignmentsStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const setDraft = useSetAtom(wizardAtom);
  const users = useQuery(userQueries.list());
  const groups = useQuery(groupQueries.list());
  const [creating, setCreating] = useState(false);
  const now = Date.now();
  const toggleUser = (id: string): void => setDraft((d) => (d ? { ...d, userIds: toggled(d.userIds, id) } : d));
  const toggleGroup = (id: string): void => setDraft((d) => (d ? { ...d, groupIds: toggled(d.groupIds, id) } : d));
  const listed = users.data?.filter((u) => u.AuthType !== "SAML");
  const samlGroups = groups.data?.filter((g) => g.Type === "saml");
  const localGroups = groups.data?.filter((g) => g.Type !== "saml");

  const userColumns: Column<User>[] = [
    selectColumn(t`Select`, (u) => t`Assign to ${u.Name}`, draft.userIds, toggleUser),
    textColumn("name", t`Name`, (u) => u.Name),
    textColumn("company", t`Company`, (u) => u.Company),
    textColumn("username", t`Username`, (u) => u.UserName),
    {
      id: "lastLogin",
      header: t`Last login`,
      sortValue: (u) => (u.LastLogin ? Date.parse(u.LastLogin) : 0),
      cell: (u) => (u.LastLogin ? relativeTime(u.LastLogin, now, i18n.locale) : t`never`),
    },
  ];
  const groupColumns: Column<Group>[] = [
    selectColumn(t`Select`, (g) => t`Assign to group ${g.Name}`, draft.groupIds, toggleGroup),
    textColumn("name", t`Name`, (g) => g.Name),
    textColumn("description", t`Description`, (g) => g.Description),
    { id: "users", header: t`Users`, sortValue: (g) => g.UserCount, cell: (g) => g.UserCount },
  ];

  return (
    <>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          nav.next();
        }}
        className="space-y-6"
      >
        <section>
          <div className="mb-2 flex items-center justify-between gap-2">
            <h3 className="font-semibold text-slate-900 dark:text-white">
              <Trans>Users</Trans>
            </h3>
            <Button onClick={() => setCreating(true)}>
              <Trans>Create user</Trans>
            </Button>
          </div>
          <DataTable
            label={t`Users`}
            testId="wizard-users"
            rows={listed}
            rowKey={(u) => u.ID}
            columns={userColumns}
            defaultSort={{ id: "name" }}
            empty={<Trans>No users yet. Create one here or later on the users page.</Trans>}
          />
        </section>
        {groups.data && groups.data.length === 0 ? (
          <p role="note" className="text-sm text-slate-700 dark:text-slate-300">
            <Trans>
              There are no groups.{" "}
              <Link to="/admin/groups" className="font-semibold text-accent-800 underline dark:text-accent-300">
                Create groups
              </Link>{" "}
              to assign Knocs to many users at once.
            </Trans>
          </p>
        ) : (
          <>
            <section>
              <h3 className="mb-2 font-semibold text-slate-900 dark:text-white">
                <Trans>SAML groups</Trans>
              </h3>
              <DataTable
                label={t`SAML groups`}
                rows={samlGroups}
                rowKey={(g) => g.ID}
                columns={groupColumns}
                defaultSort={{ id: "name" }}
                empty={<Trans>No SAML groups.</Trans>}
              />
            </section>
            <section>
              <h3 className="mb-2 font-semibold text-slate-900 dark:text-white">
                <Trans>Local groups</Trans>
              </h3>
              <DataTable
                label={t`Local groups`}
                rows={localGroups}
                rowKey={(g) => g.ID}
                columns={groupColumns}
                defaultSort={{ id: "name" }}
                empty={<Trans>No local groups.</Trans>}
              />
            </section>
          </>
        )}
        <StepButtons onBack={nav.back} />
      </form>
      {/* Outside the step's form: the dialog's own submit must not bubble into Next. */}
      {creating ? <UserForm user={undefined} onClose={() => setCreating(false)} /> : null}
    </>
  );
}
