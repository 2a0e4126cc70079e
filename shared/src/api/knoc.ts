/**
 * Knocs (docs/reference.md admin-console §2 "Knocs", the wizards, "Update Knoc"; §3 "Knoc (ACL)", "Wizard state"; §4
 * "Knoc creation sequence", "Rollback", "Knoc update"; §7 "Knoc creation is one shared operation").
 *
 * A Knoc is an ACL with its backend (docs/reference.md design). Creation is one server operation,
 * `POST /api/admin/knocs` with `{Kind, WizardState}`, run in one database transaction: backend, API
 * key (passive kinds), ACL, for Passive+ the firewall backend and hidden child ACL, then the user and
 * group assignments. It answers an array: the new Knoc id first, then — where they apply — the
 * one-time API key and the allowlist URL. `PUT /api/admin/knocs/{id}` updates backend, ACL (and its
 * parent) and assignments the same way.
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { NONE_ID } from "../limits.ts";
import { AclConfigSchema, AclWriteSchema } from "./acl.ts";
import type { Acl } from "./acl.ts";
import { AllowedFromEntrySchema, AllowedFromSchema, MAX_ALLOWED_FROM } from "./api-key.ts";
import { BackendConfigSchema } from "./backend.ts";
import type { KnocKind } from "../knoc-kind.ts";

/** The four wizard kinds. */
export const KnocKindSchema = z.enum(["LINUX", "PROXY", "SCRIPT", "APPLICATION"]);

/** The Knoc options step: the ACL's own fields. MaximumGrantDuration in seconds (minutes × 60), null for unlimited. */
export const KnocOptionsFormSchema = AclWriteSchema.pick({
  Description: true,
  URL: true,
  Category: true,
  Icon: true,
  ClickToGrant: true,
  CGNATOpen: true,
  HideFromUsers: true,
  AutoBrowseUsers: true,
  MaximumGrantDuration: true,
  IpExclusions: true,
  GrantType: true,
});

/**
 * The settings step: the backend's name and BackendConfig, and the ACL fields of that type
 * (`AclConfig`, keyed by type like the ACL's Config). Secrets blank on update keep the stored ones.
 */
export const KnocSettingsFormSchema = z.object({
  Name: z.string().trim().min(1).max(255),
  Config: BackendConfigSchema,
  AclConfig: AclConfigSchema.default({ UriToken: "" }),
});

/** One environment variable of the script wizard's step 4 (Value "" with Sensitive keeps a stored value on update). */
export const KnocEnvVarSchema = z.object({
  Name: z.string().trim(),
  Value: z.string().max(8192).default(""),
  Sensitive: z.boolean().default(false),
});

/** The wizard state (docs/reference.md admin-console §3 "Wizard state"); `step` is the browser's and is ignored. */
export const WizardStateSchema = z.object({
  step: z.unknown().optional(),
  agentId: IdSchema.default(NONE_ID),
  userIds: z.array(IdSchema).max(10_000).default([]),
  groupIds: z.array(IdSchema).max(10_000).default([]),
  form: KnocSettingsFormSchema,
  knocOptionsForm: KnocOptionsFormSchema,
  apiKeyOption: z.enum(["new", "existing", "none"]).default("none"),
  apiKeyForm: z
    .object({ Name: z.string().trim().max(128).default(""), AllowedFrom: AllowedFromSchema.optional() })
    .default({ Name: "" }),
  // May be empty (the default): it is needed only with apiKeyOption "none", and the server then answers
  // err.allowlistAccessIpRestrictionFormRequired for an empty list.
  allowlistAccessIpRestrictionForm: z
    .object({ AllowedFrom: z.array(AllowedFromEntrySchema).max(MAX_ALLOWED_FROM).default([]) })
    .default({ AllowedFrom: [] }),
  existingApiKey: IdSchema.optional(),
  envVarsForm: z.array(KnocEnvVarSchema).max(200).default([]),
});
/** The wizard state. */
export type WizardState = z.infer<typeof WizardStateSchema>;

/** POST /api/admin/knocs body. */
export const KnocCreateSchema = z.object({ Kind: KnocKindSchema, WizardState: WizardStateSchema });
/** POST /api/admin/knocs body. */
export type KnocCreate = z.infer<typeof KnocCreateSchema>;

/**
 * PUT /api/admin/knocs/{id} body: the update page's tabs (settings, Knoc options, variables, users).
 * For a Passive+ Knoc `{id}` is the child firewall Knoc's.
 */
export const KnocUpdateSchema = z.object({
  WizardState: WizardStateSchema.pick({
    userIds: true,
    groupIds: true,
    form: true,
    knocOptionsForm: true,
    envVarsForm: true,
    agentId: true,
  }),
});
/** PUT /api/admin/knocs/{id} body. */
export type KnocUpdate = z.infer<typeof KnocUpdateSchema>;

/** POST /api/admin/knocs response: [Knoc id, PlaintextKey?, AllowlistURL?] (absent ones left out). */
export const KnocCreatedSchema = z.array(z.string()).min(1);

/** A Knoc as the list and detail read it: the ACL with its backend, agent and counts. */
export type Knoc = Acl &
  KnocKind & {
    UserCount: number;
    GroupCount: number;
    AgentName: string;
    /** The backend's config, secrets read as "". */
    BackendConfig: z.infer<typeof BackendConfigSchema>;
    AclConfig: Acl["Config"];
    /** The allowlist URL of a passive Knoc ("" otherwise). */
    AllowlistURL: string;
  };
