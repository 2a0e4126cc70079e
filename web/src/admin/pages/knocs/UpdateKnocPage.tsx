/**
 * Update Knoc (docs/reference.md admin-console §2 "Update Knoc (/admin/knocs/{knocId}/update)", §4 "Knoc update", §7
 * PUT /api/admin/knocs/{id}): tabs Settings, Knoc options, Variables (script Knocs only) and Users
 * over one form; Cancel goes back; Save asks for the backend's credentials again when its host or
 * agent changed without them (`ReenterCredentialsDialog`), then saves (the server does backend, Knoc
 * and its parent, then the assignments in one transaction) and goes to the Knocs list with
 * `didUpdate`; a refusal shows in the error dialog and the form stays. For a Passive+ Knoc the id is
 * its hidden firewall child's. Without a licence it says "You do not have a license" and links to
 * the licence settings instead of the form.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useRouter } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import type { FieldErrors } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Tab, TabGroup, TabList, TabPanel, TabPanels } from "@headlessui/react";
import { Trans, useLingui } from "@lingui/react/macro";
import { Errors, backendTypeOf } from "@postern/shared";
import type { Backend, Group, Knoc, User } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { useShowError } from "../../components/ErrorDialog.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { translateAdminMessage } from "../../lib/errors.ts";
import { backendQueries } from "../../queries/backends.ts";
import { groupQueries } from "../../queries/groups.ts";
import { knocQueries, useUpdateKnoc } from "../../queries/knocs.ts";
import { statusQueries } from "../../queries/status.ts";
import { userQueries } from "../../queries/users.ts";
import { KnocAssignmentsFields } from "./KnocAssignmentsFields.tsx";
import { KnocOptionsFields } from "./KnocOptionsFields.tsx";
import { KnocSettingsFields } from "./KnocSettingsFields.tsx";
import { KnocVariablesFields } from "./KnocVariablesFields.tsx";
import { ReenterCredentialsDialog } from "./ReenterCredentialsDialog.tsx";
import { UpdateKnocFormSchema, credentialsToReenter, toKnocUpdate, updateKnocValues } from "./update-form.ts";
import type { UpdateKnocOutput, UpdateKnocValues } from "./update-form.ts";

type TabId = "settings" | "options" | "variables" | "users";

/** The tab holding the first invalid field. */
function firstTabWithErrors(errors: FieldErrors<UpdateKnocValues>): TabId | undefined {
  if (errors.form || errors.agentId) return "settings";
  if (errors.options) return "options";
  if (errors.envVars) return "variables";
  if (errors.userIds || errors.groupIds) return "users";
  return undefined;
}

const tabClass =
  "rounded-t-md border-b-2 border-transparent px-4 py-2 text-sm font-semibold text-slate-700 hover:text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-accent-600 data-selected:border-accent-700 data-selected:text-accent-800 dark:text-slate-300 dark:data-selected:text-accent-300";

/** The form once everything it needs is loaded. */
function UpdateKnocForm({
  knoc,
  backend,
  users,
  groups,
}: {
  knoc: Knoc;
  backend: Backend;
  users: readonly User[];
  groups: readonly Group[];
}) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const router = useRouter();
  const showError = useShowError();
  const update = useUpdateKnoc();
  const type = backendTypeOf(knoc.BackendConfig);
  const form = useForm<UpdateKnocValues, unknown, UpdateKnocOutput>({
    resolver: zodResolver(UpdateKnocFormSchema),
    defaultValues: updateKnocValues(knoc, users, groups),
  });
  const tabs: { id: TabId; label: string }[] = [
    { id: "settings", label: t`Settings` },
    { id: "options", label: t`Knoc options` },
    ...(knoc.Kind === "SCRIPT" ? [{ id: "variables" as const, label: t`Variables` }] : []),
    { id: "users", label: t`Users` },
  ];
  const [tab, setTab] = useState(0);
  const [asking, setAsking] = useState<{ fields: string[]; values: UpdateKnocOutput } | undefined>(undefined);
  const invalid = firstTabWithErrors(form.formState.errors);

  const save = (values: UpdateKnocOutput): void => {
    update.mutate(
      { ID: knoc.ID, ...toKnocUpdate(values) },
      {
        onSuccess: () => void navigate({ to: "/admin/knocs", search: { didUpdate: true } }),
        onError: (failure) => {
          setAsking(undefined);
          showError(failure);
        },
      },
    );
  };
  const submit = form.handleSubmit(
    (values) => {
      const fields = credentialsToReenter(backend, form.getValues());
      if (fields.length > 0) setAsking({ fields, values });
      else save(values);
    },
    (errors) => {
      const at = tabs.findIndex((x) => x.id === firstTabWithErrors(errors));
      if (at >= 0) setTab(at);
    },
  );
  const withCredentials = (secrets: Record<string, string>): void => {
    if (!asking) return;
    const config = asking.values.form.Config as Record<string, Record<string, unknown>>;
    const own = { ...config[type], ...secrets };
    save({
      ...asking.values,
      form: { ...asking.values.form, Config: { [type]: own } as UpdateKnocOutput["form"]["Config"] },
    });
  };
  const cancel = (): void => {
    if (window.history.length > 1) router.history.back();
    else void navigate({ to: "/admin/knocs" });
  };

  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <TabGroup selectedIndex={tab} onChange={setTab}>
        <TabList
          aria-label={t`Knoc settings`}
          className="mb-6 flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800"
        >
          {tabs.map((x) => (
            <Tab key={x.id} className={tabClass}>
              {x.label}
              {invalid && x.id === invalid ? (
                <>
                  <span aria-hidden="true" className="ml-1 text-red-700 dark:text-red-300">
                    •
                  </span>
                  <span className="sr-only"> {t`has errors`}</span>
                </>
              ) : null}
            </Tab>
          ))}
        </TabList>
        <TabPanels>
          {tabs.map((x) => (
            <TabPanel key={x.id} unmount={false}>
              {x.id === "settings" ? <KnocSettingsFields form={form} backend={backend} type={type} /> : null}
              {x.id === "options" ? <KnocOptionsFields form={form} /> : null}
              {x.id === "variables" ? <KnocVariablesFields form={form} /> : null}
              {x.id === "users" ? <KnocAssignmentsFields form={form} /> : null}
            </TabPanel>
          ))}
        </TabPanels>
      </TabGroup>
      <div className="mt-8 flex justify-end gap-2 border-t border-slate-200 pt-4 dark:border-slate-800">
        <Button onClick={cancel}>
          <Trans>Cancel</Trans>
        </Button>
        <Button type="submit" variant="primary" busy={update.isPending && asking === undefined}>
          <Trans>Save</Trans>
        </Button>
      </div>
      {asking ? (
        <ReenterCredentialsDialog
          fields={asking.fields}
          busy={update.isPending}
          onSubmit={withCredentials}
          onClose={() => setAsking(undefined)}
        />
      ) : null}
    </form>
  );
}

/** The Update Knoc page. */
export function UpdateKnocPage() {
  const { t, i18n } = useLingui();
  const { knocId } = useParams({ strict: false }) as { knocId: string };
  const status = useQuery(statusQueries.header());
  const knoc = useQuery(knocQueries.detail(knocId));
  const backends = useQuery(backendQueries.list());
  const users = useQuery(userQueries.list());
  const groups = useQuery(groupQueries.list());
  const backend = backends.data?.find((b) => b.ID === knoc.data?.BackendID);
  const unlicensed = status.data !== undefined && status.data.Licensing === null;
  const failed = [knoc, backends, users, groups].find((q) => q.error)?.error;
  return (
    <>
      <PageHeader title={t`Update Knoc`}>{knoc.data ? knoc.data.Description : null}</PageHeader>
      {unlicensed ? (
        <div role="alert" className="rounded-md bg-red-50 p-4 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
          {translateAdminMessage(i18n, Errors.youDoNotHaveALicense.err)}.{" "}
          <Link to="/admin/settings" className="font-semibold underline">
            <Trans>Install a license</Trans>
          </Link>
        </div>
      ) : failed ? (
        <div role="alert" className="rounded-md bg-red-50 p-4 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
          <Trans>This Knoc could not be loaded.</Trans>{" "}
          <Link to="/admin/knocs" className="font-semibold underline">
            <Trans>Back to the Knocs</Trans>
          </Link>
        </div>
      ) : knoc.data && backend && users.data && groups.data && status.data ? (
        <UpdateKnocForm key={knoc.data.ID} knoc={knoc.data} backend={backend} users={users.data} groups={groups.data} />
      ) : (
        <p aria-busy="true" className="text-sm text-slate-600 dark:text-slate-400">
          <Trans>Loading…</Trans>
        </p>
      )}
    </>
  );
}
