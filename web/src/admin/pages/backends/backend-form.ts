/**
 * The backend form's values and rules (docs/reference.md admin-console §5 "Backend"): the shared BackendWriteSchema
 * plus the type's own rules (`backendConfigProblem`, the server's, reported on the field they name)
 * and an agent for every type but the allowlist. Starting values come from the type's descriptor
 * (schema defaults and the §4 prefill).
 */
import { z } from "zod";
import {
  BACKEND_DESCRIPTORS,
  BACKEND_TYPES,
  BackendWriteSchema,
  Errors,
  NONE_ID,
  backendConfigProblem,
  isAgentless,
} from "@postern/shared";
import type { Backend, BackendType, BackendWrite } from "@postern/shared";

/** The form's values: the write body plus the chosen type (the Config's key). */
export type BackendFormValues = z.input<typeof BackendWriteSchema> & { Type: BackendType };
/** The form's values once valid. */
export type BackendFormOutput = z.output<typeof BackendWriteSchema> & { Type: BackendType };

/** The form's schema: the shared one, the type's rules on their fields, an agent unless agentless. */
export const BackendFormSchema = BackendWriteSchema.extend({
  Type: z.enum(BACKEND_TYPES),
}).superRefine((value, ctx) => {
  if (!isAgentless(value.Type) && value.AgentID === NONE_ID)
    ctx.addIssue({ code: "custom", path: ["AgentID"], message: "required" });
  const problem = backendConfigProblem(value.Config);
  if (!problem) return;
  const [path = "", detail = ""] = (problem.Extra ?? "").split(": ");
  const at: PropertyKey[] = path === "" ? ["Config"] : path.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  // A variable's problem belongs to its name field.
  if (typeof at.at(-1) === "number") at.push("Name");
  ctx.addIssue({
    code: "custom",
    path: at,
    message: problem.error === Errors.badRequest ? detail || problem.error.err : problem.error.err,
  });
});

/** Starting values of a new backend of `type` (the descriptor's defaults and prefill). */
export function newBackendValues(type: BackendType, name = "", agentId: string = NONE_ID): BackendFormValues {
  const d = BACKEND_DESCRIPTORS[type];
  const fields: Record<string, unknown> = { ...d.defaults.backend };
  if (type === "haproxy" || type === "knocproxy") {
    fields["Protocol"] = "unix";
    fields["Address"] = String(d.defaults.prefill["unixAddress"] ?? "");
  }
  return { Name: name, AgentID: agentId, Type: type, Config: { [type]: fields } } as BackendFormValues;
}

/** The values of an existing backend (secret fields read as ""; "" keeps the stored secret). */
export function existingBackendValues(backend: Backend): BackendFormValues {
  const type = Object.keys(backend.Config)[0] as BackendType;
  return { Name: backend.Name, AgentID: backend.AgentID, Type: type, Config: backend.Config } as BackendFormValues;
}

/** The write body of the form's values (the type stays in the Config's key). */
export function toWrite(values: BackendFormOutput): BackendWrite {
  const { Type: _type, ...write } = values;
  return write as BackendWrite;
}
