/**
 * The rules of each wizard step (docs/reference.md admin-console §5), built from the shared schemas so the browser
 * shows the server's own messages: the settings step (Knoc description, URL, category, icon; the
 * backend's and the ACL's fields of the chosen type, with `backendConfigProblem`, `aclConfigProblem`
 * and the secrets required on create); the Knoc options step (MaximumGrantDuration edited in
 * minutes, sent × 60; IP ranges; grant IPs); the environment variables step (names valid and unique,
 * a name needs a value and a value a name, blank-name rows dropped); and the Application wizard's
 * API key step (new: name and allowed-from prefix and note; existing: one chosen; none: at least one
 * IP range, err.allowlistAccessIpRestrictionFormRequired).
 */
import { z } from "zod";
import {
  AclConfigSchema,
  AclWriteSchema,
  AllowedFromEntrySchema,
  ApiKeyCreateSchema,
  BACKEND_TYPES,
  BackendConfigSchema,
  BackendSecretFields,
  Errors,
  KnocEnvVarSchema,
  KnocOptionsFormSchema,
  aclConfigProblem,
  backendConfigProblem,
  envVarNamesProblem,
} from "@postern/shared";
import type { ConfigProblem } from "@postern/shared";

type Ctx = z.core.$RefinementCtx;

/**
 * Adds a shared rule's problem as an issue on the field its Extra names (`Config.<type>.<field>[: detail]`),
 * with `prefix` replacing the leading "Config" (the ACL's fields live under AclConfig here). A problem
 * naming no field goes on `fallback`. "Bad request" problems carry their detail as the message.
 */
export function addProblem(ctx: Ctx, problem: ConfigProblem | null, prefix: string, fallback: PropertyKey[]): void {
  if (!problem) return;
  const [where = "", detail = ""] = (problem.Extra ?? "").split(": ");
  const parts = where.startsWith("Config.") ? where.split(".") : [];
  const path: PropertyKey[] =
    parts.length > 0 ? [prefix, ...parts.slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p))] : fallback;
  if (typeof path.at(-1) === "number") path.push("Name");
  ctx.addIssue({
    code: "custom",
    path,
    message: problem.error === Errors.badRequest ? detail || problem.error.err : problem.error.err,
  });
}

/** The Application types (docs/reference.md admin-console §3 "ApplicationType"). */
export const ApplicationTypeSchema = z.enum(["passive", "passive+", "active"]);

/** The settings step: what users see of the Knoc, and the type's backend and ACL fields. */
export const SettingsStepSchema = z
  .object({
    Description: AclWriteSchema.shape.Description,
    URL: AclWriteSchema.shape.URL,
    Category: AclWriteSchema.shape.Category,
    Icon: AclWriteSchema.shape.Icon,
    Type: z.enum(BACKEND_TYPES),
    ApplicationType: ApplicationTypeSchema.optional(),
    Config: BackendConfigSchema,
    AclConfig: AclConfigSchema,
  })
  .superRefine((value, ctx) => {
    const type = value.Type;
    const fields = (value.Config as Record<string, Record<string, unknown> | undefined>)[type] ?? {};
    for (const name of BackendSecretFields[type]) {
      if (fields[name] === "") ctx.addIssue({ code: "custom", path: ["Config", type, name], message: "required" });
    }
    addProblem(ctx, backendConfigProblem(value.Config), "Config", ["Config"]);
    if (type === "panos") {
      // Passive+ needs the EDL the firewall reads; an active palo Knoc its group (docs/decisions.md "panos").
      const panos = value.AclConfig.panos;
      const field = value.ApplicationType === "passive+" ? "EDLName" : "GroupName";
      if (panos && panos[field] === "") {
        ctx.addIssue({ code: "custom", path: ["AclConfig", "panos", field], message: "required" });
        return;
      }
    }
    const firstAclField = Object.keys(value.AclConfig[type] ?? {})[0];
    addProblem(ctx, aclConfigProblem(type, value.AclConfig), "AclConfig", [
      "AclConfig",
      type,
      ...(firstAclField ? [firstAclField] : []),
    ]);
  });
/** The settings step's values as the form holds them. */
export type SettingsStepInput = z.input<typeof SettingsStepSchema>;
/** The settings step's values once valid. */
export type SettingsStepOutput = z.output<typeof SettingsStepSchema>;

/** Minutes as typed ("" for unlimited) to the seconds the server stores (docs/reference.md admin-console §5: sent × 60). */
const minutesToSeconds = (v: unknown): unknown =>
  v === "" || v === null || v === undefined ? null : typeof v === "string" ? Number(v.trim()) * 60 : Number(v) * 60;

/** The Knoc options step: the ACL's own switches, MaximumGrantDuration in minutes, IP ranges and grant IPs. */
export const OptionsStepSchema = KnocOptionsFormSchema.pick({
  ClickToGrant: true,
  CGNATOpen: true,
  HideFromUsers: true,
  AutoBrowseUsers: true,
  IpExclusions: true,
  GrantType: true,
}).extend({
  MaximumGrantDuration: z.preprocess(minutesToSeconds, KnocOptionsFormSchema.shape.MaximumGrantDuration),
});
/** The options step's form values: MaximumGrantDuration is the minutes as typed ("" for unlimited). */
export type OptionsStepInput = Omit<z.input<typeof OptionsStepSchema>, "MaximumGrantDuration"> & {
  MaximumGrantDuration: string;
};
/** The options step's values once valid (MaximumGrantDuration in seconds or null). */
export type OptionsStepOutput = z.output<typeof OptionsStepSchema>;

/**
 * The environment variables step (docs/reference.md admin-console §5 "Environment variables in wizard and update"):
 * names valid and unique, a name needs a value and a value a name; rows with a blank name are dropped.
 */
export const EnvVarsStepSchema = z
  .object({ rows: z.array(KnocEnvVarSchema).max(64) })
  .superRefine((value, ctx) => {
    value.rows.forEach((row, i) => {
      if (row.Name === "" && row.Value !== "")
        ctx.addIssue({ code: "custom", path: ["rows", i, "Name"], message: Errors.emptyEnvVarName.err });
      if (row.Name !== "" && row.Value === "")
        ctx.addIssue({ code: "custom", path: ["rows", i, "Value"], message: "required" });
    });
    const named = value.rows.map((r, i) => ({ name: r.Name, i })).filter((r) => r.name !== "");
    const problem = envVarNamesProblem(
      named.map((r) => r.name),
      "Config.rows",
    );
    if (!problem) return;
    // The problem names the position among the named rows (or the repeated name): point at that row.
    const at = /\.(\d+)/.exec(problem.Extra ?? "")?.[1];
    const row = at !== undefined ? named[Number(at)]?.i : named.filter((r) => r.name === problem.Extra).at(-1)?.i;
    ctx.addIssue({ code: "custom", path: ["rows", row ?? 0, "Name"], message: problem.error.err });
  })
  .transform((value) => ({ rows: value.rows.filter((r) => r.Name !== "") }));
/** The environment variables step's values. */
export type EnvVarsStepInput = z.input<typeof EnvVarsStepSchema>;

/** An allowed-from entry in the wizard: prefix a CIDR and, unlike elsewhere, the note required (docs/reference.md admin-console §5). */
const WizardAllowedFromSchema = AllowedFromEntrySchema.extend({
  Note: AllowedFromEntrySchema.shape.Note.pipe(z.string().min(1, "required")),
});

/** The Application wizard's API key step (docs/reference.md admin-console §2 "API key step has three choices"). */
export const ApiKeyStepSchema = z
  .object({
    apiKeyOption: z.enum(["new", "existing", "none"]),
    apiKeyForm: z.object({
      Name: z.string(),
      AllowedFrom: z.array(z.object({ Prefix: z.string(), Note: z.string() })),
    }),
    existingApiKey: z.string(),
    allowlistAccessIpRestrictionForm: z.object({
      AllowedFrom: z.array(z.object({ Prefix: z.string(), Note: z.string() })),
    }),
  })
  .superRefine((value, ctx) => {
    const check = (schema: z.ZodType, data: unknown, path: PropertyKey[]): void => {
      const result = schema.safeParse(data);
      if (!result.success)
        for (const issue of result.error.issues)
          ctx.addIssue({ code: "custom", path: [...path, ...issue.path], message: issue.message });
    };
    if (value.apiKeyOption === "new") {
      check(ApiKeyCreateSchema.shape.Name, value.apiKeyForm.Name, ["apiKeyForm", "Name"]);
      check(z.array(WizardAllowedFromSchema).min(1, "required"), value.apiKeyForm.AllowedFrom, [
        "apiKeyForm",
        "AllowedFrom",
      ]);
    } else if (value.apiKeyOption === "existing") {
      if (value.existingApiKey === "") ctx.addIssue({ code: "custom", path: ["existingApiKey"], message: "required" });
    } else {
      const ranges = value.allowlistAccessIpRestrictionForm.AllowedFrom;
      if (ranges.length === 0)
        ctx.addIssue({
          code: "custom",
          path: ["allowlistAccessIpRestrictionForm", "AllowedFrom"],
          message: Errors.allowlistAccessIpRestrictionFormRequired.err,
        });
      check(z.array(WizardAllowedFromSchema), ranges, ["allowlistAccessIpRestrictionForm", "AllowedFrom"]);
    }
  });
/** The API key step's values. */
export type ApiKeyStepInput = z.input<typeof ApiKeyStepSchema>;
