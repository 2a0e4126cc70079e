/**
 * Groups as the admin API carries them (docs/reference.md admin-console §3 "Group", §5 "Group", §7 "Group: {ID, Name,
 * Description, Type lower-cased, ACLIDs, UserIDs}").
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";

/** Group types (docs/reference.md admin-console §9 "Group types dynamic, local, saml"); lower-case on the wire. */
export const GroupTypeSchema = z.enum(["dynamic", "local", "saml"]);
/** A group type. */
export type GroupType = z.infer<typeof GroupTypeSchema>;

/**
 * POST/PUT /api/admin/groups body. `Type` is accepted in any case and lower-cased (required on
 * create; on edit it must equal the stored type). `ACLIDs` are the ACLs the group grants; `UserIDs`
 * its members (local and dynamic groups only, never SAML users; ignored for saml groups, whose
 * members come from the identity provider).
 */
export const GroupWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1).max(255),
  Description: z.string().max(1024).default(""),
  Type: z.string().trim().toLowerCase().pipe(GroupTypeSchema),
  ACLIDs: z.array(IdSchema).max(10_000).default([]),
  UserIDs: z.array(IdSchema).max(10_000).default([]),
});
/** POST/PUT /api/admin/groups body. */
export type GroupWrite = z.infer<typeof GroupWriteSchema>;

/**
 * A group as admins read it (GET /api/admin/groups, /groups/{id}, /users/{id}/groups).
 * `UserCount` = members; `KnocCount` = ACLs of ACLIDs that admins see (Passive+ hidden children
 * excluded). `CreatedAt` is ISO 8601 UTC.
 */
export const GroupSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  Description: z.string(),
  Type: GroupTypeSchema,
  ACLIDs: z.array(IdSchema),
  UserIDs: z.array(IdSchema),
  UserCount: z.number().int(),
  KnocCount: z.number().int(),
  CreatedAt: z.string(),
});
/** A group as admins read it. */
export type Group = z.infer<typeof GroupSchema>;
