/**
 * The Users tab of Update Knoc (docs/reference.md admin-console §2 "Update Knoc", "Common wizard parts": users —
 * SAML users are not listed —, SAML groups and local groups; §7 "updating a Knoc's assignments"):
 * checklists of the users and groups that have the Knoc. Saving makes the assignments exactly these.
 */
import type { UseFormReturn } from "react-hook-form";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Group } from "@postern/shared";
import { CheckField } from "../../../ui/kit/FormField.tsx";
import { groupQueries } from "../../queries/groups.ts";
import { userQueries } from "../../queries/users.ts";
import type { UpdateKnocOutput, UpdateKnocValues } from "./update-form.ts";

type Form = UseFormReturn<UpdateKnocValues, unknown, UpdateKnocOutput>;

const legend = "mb-2 text-sm font-medium text-slate-700 dark:text-slate-200";
const box = "max-h-64 space-y-1 overflow-y-auto rounded-md p-2 ring-1 ring-slate-200 dark:ring-slate-700";

function GroupList({ form, title, groups }: { form: Form; title: string; groups: readonly Group[] }) {
  return (
    <fieldset>
      <legend className={legend}>{title}</legend>
      <div className={box}>
        {groups.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            <Trans>
              None yet.{" "}
              <Link to="/admin/groups" className="font-semibold underline">
                Manage groups
              </Link>
            </Trans>
          </p>
        ) : null}
        {groups.map((g) => (
          <CheckField key={g.ID} label={`${g.Name} (${g.UserCount})`} value={g.ID} {...form.register("groupIds")} />
        ))}
      </div>
    </fieldset>
  );
}

/** The Users tab. */
export function KnocAssignmentsFields({ form }: { form: Form }) {
  const { t } = useLingui();
  const users = useQuery(userQueries.list());
  const groups = useQuery(groupQueries.list());
  const listed = (users.data ?? []).filter((u) => u.AuthType !== "SAML").sort((a, b) => a.Name.localeCompare(b.Name));
  const sorted = [...(groups.data ?? [])].sort((a, b) => a.Name.localeCompare(b.Name));
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <fieldset>
        <legend className={legend}>
          <Trans>Users</Trans>
        </legend>
        <div className={box}>
          {listed.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              <Trans>No users yet.</Trans>
            </p>
          ) : null}
          {listed.map((u) => (
            <CheckField key={u.ID} label={`${u.Name} (${u.UserName})`} value={u.ID} {...form.register("userIds")} />
          ))}
        </div>
      </fieldset>
      <GroupList form={form} title={t`SAML groups`} groups={sorted.filter((g) => g.Type === "saml")} />
      <GroupList form={form} title={t`Local groups`} groups={sorted.filter((g) => g.Type !== "saml")} />
    </div>
  );
}
