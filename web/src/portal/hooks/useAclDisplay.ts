/**
 * What one ACL entry shows now (docs/reference.md user-portal §4): the button's action, the time left of its grant
 * (ticking with the server clock), whether that is below 900 s, and whether it failed.
 */
import { useAtomValue } from "jotai";
import { GrantStatus, Limits } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";
import { aclAction } from "../lib/acl.ts";
import type { AclAction } from "../lib/acl.ts";
import { formatTimeLeft, isExpiringSoon, secondsUntil } from "../../ui/lib/format.ts";
import { nowAtom } from "../state/atoms.ts";

/** The display state of an ACL entry. */
export interface AclDisplay {
  action: AclAction;
  /** Seconds left of the grant (NaN when nothing is granted). */
  secondsLeft: number;
  /** Compact time left ("14m 59s"), "" when none is shown. */
  timeLeft: string;
  /** Less than 900 s left (the badge turns orange). */
  expiring: boolean;
  /** The last grant or revoke failed (statuses 1 and 10). */
  failed: boolean;
}

/** Computes AclDisplay for `acl`, re-rendering every second with nowAtom. */
export function useAclDisplay(acl: StatusAcl): AclDisplay {
  const now = useAtomValue(nowAtom);
  const action = aclAction(acl, now);
  const secondsLeft = acl.ExpiredAfter === "" ? Number.NaN : secondsUntil(acl.ExpiredAfter, now);
  const timeLeft = action === "revoke" ? formatTimeLeft(secondsLeft) : "";
  const expiring = timeLeft !== "" && isExpiringSoon(secondsLeft, Limits.expiringSoonSeconds);
  const failed = acl.Status === GrantStatus.GrantError || acl.Status === GrantStatus.RevokedWithError;
  return { action, secondsLeft, timeLeft, expiring, failed };
}
