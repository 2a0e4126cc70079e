/**
 * Groups (docs/reference.md admin-console §2 "Groups", §4, §5 "Group"): a sortable, searchable table (name, type,
 * description, Knocs count, users count, actions Edit and Delete) and Create group. The form
 * validates with the shared GroupWriteSchema; the type cannot change when editing; the members
 * checklist leaves out SAML users and is not shown for SAML groups (their members come from the
 * identity provider); the Knocs checklist lists the ACLs.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { GroupWriteSchema } from "@postern/shared";
import type { Group, GroupWrite } from "@postern/shared";
import type { z } from "zod";
import { Button } from "../../ui/kit/Button.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { CheckField, FormField, SelectField } from "../../ui/kit/FormField.tsx";
import { FormDialog } from "../../ui/kit/FormDialog.tsx";
import { DeleteConfirm } from "../components/MutationConfirm.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionsColumn, textColumn } from "../lib/columns.tsx";
import { useFeedback } from "../lib/feedback.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { aclQueries } from "../queries/acls.ts";
import { groupQueries, useCreateGroup, useDeleteGroup, useUpdateGroup } from "../queries/groups.ts";
import { userQueries } from "../queries/users.ts";

type Open = { kind: "none" } | { kind: "create" } | { kind: "edit"; group: Group } | { kind: "delete"; group: Group };
type GroupFormInput = z.input<typeof GroupWriteSchema>;

function GroupForm({ group, onClose }: { group: Group | undefined; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateGroup();
  const update = useUpdateGroup();
  const users = useQuery(userQueries.list());
  const acls = useQuery(aclQueries.list());
  const editing = group !== undefined;
  const form = useForm<GroupFormInput, unknown, GroupWrite>({
    resolver: zodResolver(GroupWriteSchema),
    defaultValues: group
      ? {
          Name: group.Name,
          Description: group.Description,
          Type: group.Type,
          ACLIDs: group.ACLIDs,
          UserIDs: group.UserIDs,
        }
      : { Name: "", Description: "", Type: "local", ACLIDs: [], UserIDs: [] },
  });
  const type = form.watch("Type");
  const submit = form.handleSubmit((values) => {
    if (group) update.mutate({ ...values, ID: group.ID }, feedback(t`Group updated`, onClose));
    else create.mutate(values, feedback(t`Group created`, onClose));
  });
  return (
    <FormDialog
      title={editing ? t`Edit group` : t`Create group`}
      size="lg"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField
        label={t`Name`}
        required
        autoFocus
        error={fieldErrorText(i18n, form.formState.errors.Name)}
        {...form.register("Name")}
      />
      <FormField label={t`Description`} {...form.register("Description")} />
      <SelectField
        label={t`Type`}
        disabled={editing}
        options={[
          { value: "local", label: t`Local` },
          { value: "dynamic", label: t`Dynamic` },
          { value: "saml", label: "SAML" },
        ]}
        {...form.register("Type")}
      />
      <fieldset>
        <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
          <Trans>Knocs</Trans>
        </legend>
        <div className="max-h-40 space-y-1 overflow-y-auto">
          {acls.data?.length === 0 ? <Trans>No Knocs yet.</Trans> : null}
          {acls.data?.map((acl) => (
            <CheckField key={acl.ID} label={acl.Description} value={acl.ID} {...form.register("ACLIDs")} />
          ))}
        </div>
      </fieldset>
      {type === "saml" ? (
        <p role="note" className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>The members of a SAML group come from the identity provider.</Trans>
        </p>
      ) : (
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
            <Trans>Users</Trans>
          </legend>
          <div className="max-h-40 space-y-1 overflow-y-auto">
            {users.data
              ?.filter((u) => u.AuthType !== "SAML")
              .map((u) => (
                <CheckField key={u.ID} label={`${u.Name} (${u.UserName})`} value={u.ID} {...form.register("UserIDs")} />
              ))}
          </div>
        </fieldset>
      )}
    </FormDialog>
  );
}

/** The groups page. */
export function GroupsPage() {
  const { t } = useLingui();
  const groups = useQuery(groupQueries.list());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteGroup();
  const openName = "group" in open ? open.group.Name : "";
  const typeLabel = (g: Group): string => (g.Type === "local" ? t`Local` : g.Type === "dynamic" ? t`Dynamic` : "SAML");

  const columns: Column<Group>[] = [
    textColumn("name", t`Name`, (g) => g.Name),
    { id: "type", header: t`Type`, sortValue: typeLabel, searchText: typeLabel, cell: typeLabel },
    { id: "description", header: t`Description`, searchText: (g) => g.Description, cell: (g) => g.Description },
    { id: "knocs", header: t`Knocs`, sortValue: (g) => g.KnocCount, cell: (g) => g.KnocCount },
    { id: "users", header: t`Users`, sortValue: (g) => g.UserCount, cell: (g) => g.UserCount },
    actionsColumn(
      t`Actions`,
      (g) => g.Name,
      (g) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", group: g }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", group: g }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Groups`}
        actions={
          <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
            <Trans>Create group</Trans>
          </Button>
        }
      />
      <DataTable
        label={t`Groups`}
        testId="groups-table"
        searchable
        columns={columns}
        rows={groups.data}
        rowKey={(g) => g.ID}
        rowProps={(g) => ({ "data-group-id": g.ID })}
        defaultSort={{ id: "name" }}
        empty={<Trans>No groups yet.</Trans>}
      />
      {open.kind === "create" ? <GroupForm group={undefined} onClose={close} /> : null}
      {open.kind === "edit" ? <GroupForm group={open.group} onClose={close} /> : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete group`}
          success={t`Group deleted`}
          name={openName}
          mutation={remove}
          variables={open.group.ID}
          onClose={close}
        />
      ) : null}
    </>
  );
}
