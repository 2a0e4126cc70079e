/**
 * The form fields of a backend type's configuration, read from its shared zod schema (the
 * descriptor's `backendSchema`, shared/src/backend-types.ts), so a type's fields are written once:
 * text for strings (a password input for the descriptor's secret fields), a checkbox for booleans,
 * a select for enums, a numeric text input for numbers (a port, the HAProxy ACL id), and the variables
 * editor for a script's EnvVars.
 */
import type { z } from "zod";

/** One field of a type's configuration form. */
export interface ConfigField {
  readonly name: string;
  readonly kind: "text" | "secret" | "boolean" | "enum" | "number" | "envVars";
  /** The choices of an enum field. */
  readonly options?: readonly string[];
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  entries?: Record<string, string>;
  options?: z.ZodType[];
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

/** The fields of `schema` (a zod object), in its order; `secretFields` become password inputs. */
export function configFields(schema: z.ZodType, secretFields: readonly string[]): ConfigField[] {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries(shape).flatMap(([name, field]): ConfigField[] => {
    const def = unwrap(field);
    if (def.type === "boolean") return [{ name, kind: "boolean" }];
    if (def.type === "enum") return [{ name, kind: "enum", options: Object.values(def.entries ?? {}) }];
    if (def.type === "array" && name === "EnvVars") return [{ name, kind: "envVars" }];
    if (def.type === "string") return [{ name, kind: secretFields.includes(name) ? "secret" : "text" }];
    if (def.type === "union") {
      // An enum or "" (a choice still to make, e.g. Azure's NsgDirection), or a number also accepted as digits (ports).
      const options = (def.options ?? []).map(unwrap);
      const choices = options.find((o) => o.type === "enum");
      if (choices) return [{ name, kind: "enum", options: ["", ...Object.values(choices.entries ?? {})] }];
      if (options.some((o) => o.type === "number")) return [{ name, kind: "number" }];
      return [];
    }
    if (def.type === "number") return [{ name, kind: "number" }];
    return [];
  });
}
