/**
 * Request body parsing with the shared zod schemas. A body that is not JSON answers 400 "Failed
 * decoding request body"; a schema violation answers 400 with the spec's key when the failing rule
 * carries one (e.g. "The maximum grant duration for the ACL is invalid"), otherwise "Bad request"
 * with `Extra` naming the field and the problem.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { Errors } from "@postern/shared";
import { AppError, validationError } from "../errors.ts";

/** Parses and validates the JSON body; throws AppError 400 as described above. */
export async function parseBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError(Errors.failedDecodingRequestBody);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw validationError(result.error.issues[0]);
}
