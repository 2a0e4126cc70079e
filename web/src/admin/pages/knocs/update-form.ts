/**
 * The Update Knoc form's values and rules (docs/reference.md admin-console §2 "Update Knoc", §4 "Knoc update", §5):
 * one form over the page's tabs — settings (the backend's name, agent and fields, the ACL fields of
 * its type), Knoc options (maximum grant duration edited in minutes, sent ×60 as seconds), the
 * script variables, and the users and groups. It validates with the shared schemas
 * (KnocSettingsFormSchema, KnocOptionsFormSchema, KnocEnvVarSchema) and the shared §5 rules
 * (`backendConfigProblem`, `aclConfigProblem`, `envVarNameProblem`) reported on the field they name.
 * Secrets are blank: blank keeps the stored one, unless the host or agent changed (then they are
 * asked for again: `credentialsToReenter`).
 */
import { z } from "zod";
import {
  BACKEND_DESCRIPTORS,
  BackendHostField,
  Errors,
  IdSchema,
  KnocEnvVarSchema,
  KnocOptionsFormSchema,
  KnocSettingsFormSchema,
  Limits,
  NONE_ID,
  aclConfigProblem,
  backendConfigProblem,
  backendTypeOf,
  envVarNameProblem,
} from "@postern/shared";
import { configFields } from "../../lib/config-fields.ts";
import type { Backend, BackendType, ConfigProblem, Group, Knoc, KnocUpdate, User } from "@postern/shared";

const durationError = Errors.invalidMaximumGrantDuration.err;

/** The maximum grant duration as typed, in minutes: "" is unlimited (null), else 5–40320, as seconds. */
const MinutesSchema = z
  .string()
  .trim()
  .transform((text, ctx) => {
    if (text === "") return null;
    const minutes = Number(text);
    if (
      !/^\d+$/.test(text) ||
      minutes < Limits.maximumGrantDurationMinMinutes ||
      minutes > Limits.maximumGrantDurationMaxMinutes
    ) {
      ctx.addIssue({ code: "custom", message: durationError });
      return z.NEVER;
    }
    return minutes * 60;
  });

/** One script variable row: the shared schema plus whether a sealed value is stored (then Value may stay blank). */
const EnvVarRowSchema = KnocEnvVarSchema.extend({ Recorded: z.boolean().default(false) });

/**
 * The settings step's schema with the type's §5 rules on the fields they name (a rule without a
 * field, such as ipset's "one set name at least", on the type's first field). Each section carries
 * its own rules so that every tab's messages show at once.
 */
const SettingsSchema = KnocSettingsFormSchema.superRefine((form, ctx) => {
  const type = backendTypeOf(form.Config);
  const report = (problem: ConfigProblem | null, root: "Config" | "AclConfig"): void => {
    if (!problem) return;
    const [path = "", detail = ""] = (problem.Extra ?? "").split(": ");
    const first = configFields(BACKEND_DESCRIPTORS[type][root === "Config" ? "backendSchema" : "aclSchema"], [])[0];
    const at = path.startsWith("Config.")
      ? [root, ...path.slice("Config.".length).split(".")]
      : [root, type, ...(first ? [first.name] : [])];
    ctx.addIssue({
      code: "custom",
      path: at,
      message: problem.error === Errors.badRequest ? detail || problem.error.err : problem.error.err,
    });
  };
  // A script's variables are checked on the Variables tab (envVarIssues), not here.
  const script = form.Config.script;
  report(backendConfigProblem(script ? { script: { ...script, EnvVars: [] } } : form.Config), "Config");
  const aclScript = form.AclConfig.script;
  const acl = aclScript ? { ...form.AclConfig, script: { ...aclScript, EnvVars: {} } } : form.AclConfig;
  if (type !== "allowlist") report(aclConfigProblem(type, acl), "AclConfig");
});

/** The form's schema (see the module documentation). */
export const UpdateKnocFormSchema = z
  .object({
    agentId: IdSchema,
    form: SettingsSchema,
    options: KnocOptionsFormSchema.omit({ MaximumGrantDuration: true }).extend({ MaxMinutes: MinutesSchema }),
    envVars: z
      .array(EnvVarRowSchema)
      .superRefine((rows, ctx) => envVarIssues(rows).forEach((issue) => ctx.addIssue({ code: "custom", ...issue }))),
    userIds: z.array(IdSchema),
    groupIds: z.array(IdSchema),
  })
  .superRefine((value, ctx) => {
    if (!BACKEND_DESCRIPTORS[backendTypeOf(value.form.Config)].agentless && value.agentId === NONE_ID)
      ctx.addIssue({ code: "custom", path: ["agentId"], message: "required" });
  });

/** The form's values as edited. */
export type UpdateKnocValues = z.input<typeof UpdateKnocFormSchema>;
/** The form's values once valid. */
export type UpdateKnocOutput = z.output<typeof UpdateKnocFormSchema>;

/**
 * §5 "Environment variables in wizard and update": a name needs a value and a value a name (a
 * stored sealed value counts), names valid (not reserved, no '=') and unique; rows blank in both
 * are dropped. Paths are `[row, field]`.
 */
export function envVarIssues(
  rows: readonly { Name?: string; Value?: string; Recorded?: boolean }[],
): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const name = (row.Name ?? "").trim();
    const value = row.Value ?? "";
    if (name === "" && value === "") return;
    if (name === "") return void issues.push({ path: [i, "Name"], message: Errors.emptyEnvVarName.err });
    const problem = envVarNameProblem(name, `envVars.${i}`);
    if (problem) return void issues.push({ path: [i, "Name"], message: problem.error.err });
    if (seen.has(name)) issues.push({ path: [i, "Name"], message: Errors.repeatedEnvVarNames.err });
    seen.add(name);
    if (value === "" && !row.Recorded) issues.push({ path: [i, "Value"], message: "required" });
  });
  return issues;
}

/** The users who have the Knoc directly (`assignedTo`: the Knoc, or for a Passive+ child its parent). */
const directUsers = (users: readonly User[], assignedTo: string): string[] =>
  users.filter((u) => u.AclIds.includes(assignedTo)).map((u) => u.ID);

/** The form's starting values from the stored Knoc, its backend, and the users and groups that have it. */
export function updateKnocValues(knoc: Knoc, users: readonly User[], groups: readonly Group[]): UpdateKnocValues {
  const type = backendTypeOf(knoc.BackendConfig);
  const assignedTo = knoc.ParentID !== NONE_ID ? knoc.ParentID : knoc.ID;
  const declared = knoc.BackendConfig.script?.EnvVars ?? [];
  const values = knoc.AclConfig.script?.EnvVars ?? {};
  const minutes = knoc.MaximumGrantDuration === null ? "" : String(knoc.MaximumGrantDuration / 60);
  return {
    agentId: knoc.AgentID,
    form: {
      Name: knoc.BackendName.replace(/ \(firewall\)$/, ""),
      Config: knoc.BackendConfig,
      AclConfig: {
        UriToken: knoc.AclConfig.UriToken,
        [type]: knoc.AclConfig[type],
      } as UpdateKnocValues["form"]["AclConfig"],
    },
    options: {
      Description: knoc.Description,
      URL: knoc.URL,
      Category: knoc.Category,
      Icon: knoc.Icon,
      ClickToGrant: knoc.ClickToGrant,
      CGNATOpen: knoc.CGNATOpen,
      HideFromUsers: knoc.HideFromUsers,
      AutoBrowseUsers: knoc.AutoBrowseUsers,
      MaxMinutes: minutes,
      IpExclusions: knoc.IpExclusions,
      GrantType: knoc.GrantType,
    },
    envVars: declared.map((v) => ({
      Name: v.Name,
      Value: values[v.Name]?.Encrypted ? "" : (values[v.Name]?.Value ?? ""),
      Sensitive: v.Sensitive || values[v.Name]?.Encrypted === true,
      Recorded: values[v.Name]?.Encrypted === true,
    })),
    userIds: directUsers(users, assignedTo),
    groupIds: groups.filter((g) => g.ACLIDs.includes(assignedTo)).map((g) => g.ID),
  };
}

/** The PUT body of the valid form (blank variable rows dropped; the backend declares the variables kept). */
export function toKnocUpdate(values: UpdateKnocOutput): KnocUpdate {
  const { MaxMinutes, ...options } = values.options;
  const envVars = values.envVars.filter((v) => v.Name !== "").map(({ Recorded: _r, ...v }) => v);
  const config = values.form.Config.script
    ? {
        script: {
          ...values.form.Config.script,
          EnvVars: envVars.map((v) => ({ Name: v.Name, Sensitive: v.Sensitive })),
        },
      }
    : values.form.Config;
  return {
    WizardState: {
      agentId: values.agentId,
      userIds: values.userIds,
      groupIds: values.groupIds,
      form: { ...values.form, Config: config },
      knocOptionsForm: { ...options, MaximumGrantDuration: MaxMinutes },
      envVarsForm: envVars,
    },
  };
}

/**
 * The secret fields to ask for again before saving (docs/reference.md admin-console §4 "Knoc update"): those left
 * blank when the backend's host or URL (`BackendHostField`) or its agent changed and the type has
 * secrets. Empty when nothing needs asking.
 */
export function credentialsToReenter(backend: Backend, values: UpdateKnocValues): string[] {
  const type = backendTypeOf(backend.Config) as BackendType;
  const secrets = BACKEND_DESCRIPTORS[type].secretFields;
  if (secrets.length === 0) return [];
  const stored = (backend.Config as Record<string, Record<string, unknown>>)[type] ?? {};
  const edited = ((values.form.Config as Record<string, Record<string, unknown> | undefined>)[type] ?? {}) as Record<
    string,
    unknown
  >;
  const host = BackendHostField[type];
  const hostChanged = host !== undefined && String(stored[host] ?? "") !== String(edited[host] ?? "").trim();
  const agentChanged = values.agentId !== backend.AgentID;
  if (!hostChanged && !agentChanged) return [];
  return secrets.filter((name) => String(edited[name] ?? "") === "");
}
