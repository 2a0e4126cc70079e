/**
 * Building blocks for the wire schemas: UUIDs (the all-zero UUID means none), ISO times, names.
 */
import { z } from "zod";
import { NONE_ID } from "./limits.ts";

/** A UUID as the spec uses for every ID (docs/reference.md admin-console §3). */
export const IdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "Invalid ID");
/** An ID that may be the all-zero UUID (none). */
export const OptionalIdSchema = IdSchema.default(NONE_ID);
/** An ISO 8601 time in UTC. */
export const IsoTimeSchema = z.iso.datetime({ offset: true });
/** A port number 0–65535 (0 when unknown). */
export const PortSchema = z.number().int().min(0).max(65535);

/** The body of every error response (`ErrorBody` of the error catalogue), for clients that parse it. */
export const ErrorBodySchema = z.object({ Err: z.string(), Extra: z.string().optional() });
