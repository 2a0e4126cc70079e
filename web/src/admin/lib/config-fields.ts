/**
 * The form fields of a backend type's configuration, read from its shared zod schema (the
 * descriptor's `backendSchema` or `aclSchema`, shared/src/backend-types.ts), so a type's fields are
 * written once: text for strings (a password input for the descriptor's secret fields), a checkbox
 * for booleans, a select for enums (an enum or "" gives the "" choice first), a number input for
 * numbers and numeric strings (haproxy ACL ID, ports), the variables editor for a script backend's
 * EnvVars, the variable values of a script ACL's EnvVars map, and the prefix list of an allowlist
 * ACL's AllowedIpAddresses.
 */
import type { z } from "zod";

/** One field of a type's configuration form. */
export interface ConfigField {
  readonly name: string;
  readonly kind: "text" | "secret" | "boolean" | "enum" | "number" | "envVars" | "envValues" | "prefixes";
  /** The choices of an enum field ("" first when the field may be left unchosen). */
  readonly options?: readonly string[];
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  entries?: Record<string, string>;
  options?: z.ZodType[];
  values?: unknown[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def;

/** The schema under defaults, optionals and transforms. */
function unwrap(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (let i = 0; i < 8; i++) {
    const inner = def.innerType ?? def.in;
    if (!inner || !["default", "optional", "nullable", "pipe", "prefault"].includes(def.type)) break;
    def = defOf(inner);
  }
  return def;
}

/** The field a union stands for: a number when one branch is numeric, an enum (with "") when one is an enum. */
function unionField(name: string, def: Def): ConfigField[] {
  const branches = (def.options ?? []).map(unwrap);
  if (branches.some((b) => b.type === "number")) return [{ name, kind: "number" }];
  const choices = branches.find((b) => b.type === "enum");
  if (!choices) return [];
  const empty = branches.some((b) => b.type === "literal" && (b.values ?? []).includes(""));
  return [{ name, kind: "enum", options: [...(empty ? [""] : []), ...Object.values(choices.entries ?? {})] }];
}

/** The fields of `schema` (a zod object), in its order; `secretFields` become password inputs. */
export function configFields(schema: z.ZodType, secretFields: readonly string[]): ConfigField[] {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries(shape).flatMap(([name, field]): ConfigField[] => {
    const def = unwrap(field);
    if (def.type === "boolean") return [{ name, kind: "boolean" }];
    if (def.type === "enum") return [{ name, kind: "enum", options: Object.values(def.entries ?? {}) }];
    if (def.type === "number") return [{ name, kind: "number" }];
    if (def.type === "union") return unionField(name, def);
    if (def.type === "array" && name === "EnvVars") return [{ name, kind: "envVars" }];
    if (def.type === "record" && name === "EnvVars") return [{ name, kind: "envValues" }];
    if (def.type === "array" && name === "AllowedIpAddresses") return [{ name, kind: "prefixes" }];
    if (def.type === "string") return [{ name, kind: secretFields.includes(name) ? "secret" : "text" }];
    return [];
  });
}
