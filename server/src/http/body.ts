/**
 * Request body parsing with the shared zod schemas. A body that is not JSON answers 400 "Failed
 * decoding request body"; a schema violation answers 400 with the spec's key when the failing rule
 * carries one (e.g. "The maximum grant duration for the ACL is invalid"), otherwise "Bad request"
 * with `Extra` naming the field and the problem.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { ServerMessage } from "@postern/shared";
import { AppError } from "../errors.ts";

const specMessages = new Set<string>(Object.values(ServerMessage));

/** Parses and validates the JSON body; throws AppError 400 as described above. */
export async function parseBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError(400, ServerMessage.failedDecodingRequestBody);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.join(".") ?? "";
  const message = issue?.message ?? "invalid";
  if (message.startsWith("err.") || specMessages.has(message)) throw new AppError(400, message, path || undefined);
  throw new AppError(400, ServerMessage.badRequest, path ? `${path}: ${message}` : message);
}
