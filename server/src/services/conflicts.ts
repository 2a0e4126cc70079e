/**
 * Unique constraints as the spec's conflicts (issue #12 item 3; docs/reference.md admin-console §8):
 * a name is checked before it is written, and the database's unique constraint is what holds when two
 * writers (two requests, two replicas) pass that check at once. The loser's constraint violation
 * becomes the same 409 the check gives, wherever it surfaces (http/on-error.ts).
 */
import { Errors, type ErrorEntry } from "@postern/shared";
import { uniqueViolation } from "../db/index.ts";
import { AppError } from "../errors.ts";

/** The conflict answered for each unique `table.column` people choose. */
const CONFLICTS: Readonly<Record<string, ErrorEntry>> = {
  "users.user_name": Errors.userNameExists,
  "admins.user_name": Errors.adminNameExists,
  "agents.name": Errors.agentNameExists,
  "backends.name": Errors.backendNameExists,
  "groups.name": Errors.groupNameExists,
  "api_keys.name": Errors.apiKeyNameExists,
};

/** The 409 AppError for `err` when it broke one of the unique names above; undefined otherwise. */
export function conflictOf(err: unknown): AppError | undefined {
  const column = uniqueViolation(err);
  const entry = column === undefined ? undefined : CONFLICTS[column];
  return entry ? new AppError(entry) : undefined;
}
