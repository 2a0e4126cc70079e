/**
 * The wizard's UI state in jotai (docs/reference.md admin-console §3 "Wizard state": step, agentId, userIds, groupIds,
 * form, knocOptionsForm, apiKeyOption, apiKeyForm, allowlistAccessIpRestrictionForm, existingApiKey,
 * envVarsForm). Each step's form values are kept as typed, so Back shows them again; the POST body is
 * built from them once at submit (`toCreateBody`), through the same step schemas that let Next pass.
 * The state is kept in session storage (docs/reference.md admin-console §9), so a reload keeps the
 * run, but never its secrets: the backend type's secret fields and Sensitive variable values are
 * written empty (`withoutSecrets`) and must be entered again after a reload. Choosing a kind in the
 * chooser resets it (`initialDraft`).
 */
import { atomWithStorage, createJSONStorage } from "jotai/utils";
import { NONE_ID, backendDescriptor } from "@postern/shared";
import type { BackendType } from "@postern/shared";
import type { KnocCreate, KnocCreateSchema } from "@postern/shared";
import type { z } from "zod";
import { DEFAULT_KNOC_ICON, knocIconUrl } from "../../../lib/knoc-icons.ts";
import { KIND_NAME, initialAclConfig, initialBackendFields, initialType } from "./wizard-defaults.ts";
import type { WizardKind } from "./wizard-defaults.ts";
import { ApiKeyStepSchema, EnvVarsStepSchema, OptionsStepSchema, SettingsStepSchema } from "./wizard-schemas.ts";
import type { ApiKeyStepInput, EnvVarsStepInput, OptionsStepInput, SettingsStepInput } from "./wizard-schemas.ts";

/** Everything a wizard run holds until it is submitted. */
export interface WizardDraft {
  kind: WizardKind;
  /** The current step's id (the wizard's own step list names them). */
  step: string;
  agentId: string;
  userIds: string[];
  groupIds: string[];
  settings: SettingsStepInput;
  /** True once the admin typed a proxy address: the protocol's prefill stops (docs/reference.md admin-console §4). */
  addressTyped: boolean;
  options: OptionsStepInput;
  apiKey: ApiKeyStepInput;
  envVars: EnvVarsStepInput;
}

/** A fresh draft of `kind`: its first step, no agent, the type's defaults and the §4 prefills. */
export function initialDraft(kind: WizardKind, firstStep: string): WizardDraft {
  const type = initialType(kind);
  return {
    kind,
    step: firstStep,
    agentId: NONE_ID,
    userIds: [],
    groupIds: [],
    settings: {
      Description: "",
      URL: "",
      Category: "Default",
      Icon: knocIconUrl(DEFAULT_KNOC_ICON),
      Type: type,
      ...(kind === "application" ? { ApplicationType: "passive" as const } : {}),
      Config: { [type]: initialBackendFields(type) },
      AclConfig: initialAclConfig(type),
    } as SettingsStepInput,
    addressTyped: false,
    options: {
      ClickToGrant: false,
      CGNATOpen: false,
      HideFromUsers: false,
      AutoBrowseUsers: false,
      MaximumGrantDuration: "",
      IpExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      GrantType: { Type: "userIp", Ips: [] },
    },
    apiKey: {
      apiKeyOption: "new",
      apiKeyForm: { Name: "", AllowedFrom: [{ Prefix: "", Note: "" }] },
      existingApiKey: "",
      allowlistAccessIpRestrictionForm: { AllowedFrom: [{ Prefix: "", Note: "" }] },
    },
    envVars: { rows: [] },
  };
}

/** The draft as it may be stored: the type's secret fields and Sensitive variable values emptied. */
export function withoutSecrets(draft: WizardDraft): WizardDraft {
  const type = draft.settings.Type as BackendType;
  const config = { ...((draft.settings.Config as Record<string, Record<string, unknown> | undefined>)[type] ?? {}) };
  for (const field of backendDescriptor(type).secretFields) if (field in config) config[field] = "";
  return {
    ...draft,
    settings: { ...draft.settings, Config: { [type]: config } } as SettingsStepInput,
    envVars: { rows: draft.envVars.rows.map((row) => (row.Sensitive ? { ...row, Value: "" } : row)) },
  };
}

/** The session storage key of the wizard run. */
export const WIZARD_STORAGE_KEY = "postern.admin.wizard";

// Outside a browser (unit tests) there is no session storage: the draft is then kept in memory only.
const sessionStore = (): Storage =>
  typeof sessionStorage === "undefined" ? (undefined as unknown as Storage) : sessionStorage;
const json = createJSONStorage<WizardDraft | undefined>(sessionStore);
/** Session storage that never receives a secret (see `withoutSecrets`). */
const secretFreeStorage: typeof json = {
  ...json,
  setItem: (key, value) => (value === undefined ? json.removeItem(key) : json.setItem(key, withoutSecrets(value))),
};

/** The current wizard run (undefined before a kind is chosen), kept in session storage without its secrets. */
export const wizardAtom = atomWithStorage<WizardDraft | undefined>(WIZARD_STORAGE_KEY, undefined, secretFreeStorage, {
  getOnInit: true,
});

/**
 * The POST /api/admin/knocs body of a finished draft (docs/reference.md admin-console §7 "Knoc creation is one shared
 * operation"). Throws a ZodError if a step's values no longer pass (Next would not have let them).
 */
export function toCreateBody(draft: WizardDraft): KnocCreate {
  return toCreateInput(draft) as KnocCreate;
}

/** The body as sent: parts that keep their server-side defaults are left out. */
function toCreateInput(draft: WizardDraft): z.input<typeof KnocCreateSchema> {
  const settings = SettingsStepSchema.parse(draft.settings);
  const options = OptionsStepSchema.parse(draft.options);
  const envVars = EnvVarsStepSchema.parse(draft.envVars).rows;
  const passive = settings.ApplicationType === "passive" || settings.ApplicationType === "passive+";
  const apiKey = draft.kind === "application" && passive ? ApiKeyStepSchema.parse(draft.apiKey) : undefined;
  return {
    Kind: KIND_NAME[draft.kind],
    WizardState: {
      agentId: settings.Type === "allowlist" ? NONE_ID : draft.agentId,
      userIds: draft.userIds,
      groupIds: draft.groupIds,
      form: { Name: settings.Description, Config: settings.Config, AclConfig: settings.AclConfig },
      knocOptionsForm: {
        Description: settings.Description,
        URL: settings.URL,
        Category: settings.Category,
        Icon: settings.Icon,
        ...options,
      },
      apiKeyOption: apiKey?.apiKeyOption ?? "none",
      apiKeyForm:
        apiKey?.apiKeyOption === "new"
          ? { Name: apiKey.apiKeyForm.Name.trim(), AllowedFrom: apiKey.apiKeyForm.AllowedFrom }
          : { Name: "" },
      // Only with "none" does the server read it (and refuse an empty list).
      ...(apiKey?.apiKeyOption === "none"
        ? { allowlistAccessIpRestrictionForm: { AllowedFrom: apiKey.allowlistAccessIpRestrictionForm.AllowedFrom } }
        : {}),
      ...(apiKey?.apiKeyOption === "existing" ? { existingApiKey: apiKey.existingApiKey } : {}),
      envVarsForm: draft.kind === "script" ? envVars : [],
    },
  };
}
