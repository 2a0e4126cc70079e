/**
 * Which global alert the admin console shows (docs/reference.md admin-console §2 "Global alert banner", §4 "User
 * license banner", §8): the first of unlicensed, err, agentIncompatible, userLimitExceeded and
 * serverUpdate that applies and was not dismissed.
 */
import type { AdminStatus, Agent, User } from "@postern/shared";
import { compareVersions } from "./version.ts";

/** The banner kinds in priority order. */
export const BANNER_ORDER = ["unlicensed", "err", "agentIncompatible", "userLimitExceeded", "serverUpdate"] as const;
/** A banner kind. */
export type BannerKind = (typeof BANNER_ORDER)[number];

/** Urgency of a server update, most urgent first. */
export const URGENCY_ORDER = ["critical", "high", "medium", "low"] as const;

/** The banner to show with what its text needs. */
export type Banner =
  | { kind: "unlicensed" }
  | { kind: "err"; error: unknown }
  | { kind: "agentIncompatible"; required: string; agents: string[] }
  | {
      kind: "userLimitExceeded";
      userCount: number;
      limit: number;
      /** Users that may still be created within the grace allowance (0 when creation is blocked). */
      remaining: number;
      percentage: number;
      blocked: boolean;
    }
  | { kind: "serverUpdate"; version: string; urgency: (typeof URGENCY_ORDER)[number]; link: string };

/**
 * A local build: a version with build metadata `+local` or one of "dev", "0.0.0" (decision: the
 * spec says only that local builds get no update banner).
 */
export function isLocalBuild(version: string): boolean {
  return version === "dev" || version === "0.0.0" || version.endsWith("+local");
}

/** Inputs of pickBanner: the header status (or its failure), agents, users, dismissed kinds. */
export interface BannerInputs {
  status: AdminStatus | undefined;
  statusError: unknown;
  agents: readonly Agent[] | undefined;
  users: readonly User[] | undefined;
  dismissed: ReadonlySet<BannerKind>;
}

/** Every banner that applies, in priority order. */
export function applicableBanners({ status, statusError, agents, users }: BannerInputs): Banner[] {
  const out: Banner[] = [];
  if (status && status.Licensing === null) out.push({ kind: "unlicensed" });
  if (statusError) out.push({ kind: "err", error: statusError });
  if (status && agents) {
    const required = status.MinimumRequiredAgentVersion;
    const old = agents.filter((a) => a.Version !== "" && compareVersions(a.Version, required) < 0).map((a) => a.Name);
    if (old.length > 0) out.push({ kind: "agentIncompatible", required, agents: old });
  }
  if (status?.Licensing && users) {
    const { UserLimit, UserLimitOverage, UserLimitOveragePercentage } = status.Licensing;
    const samlUsers = users.some((u) => u.AuthType === "SAML");
    if (samlUsers && status.UserCount > UserLimit) {
      const hard = UserLimit + UserLimitOverage;
      out.push({
        kind: "userLimitExceeded",
        userCount: status.UserCount,
        limit: UserLimit,
        remaining: Math.max(0, hard - status.UserCount),
        percentage: UserLimitOveragePercentage,
        blocked: status.UserCount >= hard,
      });
    }
  }
  if (status && !status.Cloud && !isLocalBuild(status.ServerVersion)) {
    const newer = status.AvailableServerVersions.filter((v) => compareVersions(v.version, status.ServerVersion) > 0);
    const top = [...newer].sort((a, b) => URGENCY_ORDER.indexOf(a.urgency) - URGENCY_ORDER.indexOf(b.urgency))[0];
    if (top)
      out.push({
        kind: "serverUpdate",
        version: top.version,
        urgency: top.urgency,
        link: top.changelog_link ?? status.LatestChangeLogsUrl,
      });
  }
  return out;
}

/** The banner shown: the first applicable one not dismissed. */
export function pickBanner(inputs: BannerInputs): Banner | undefined {
  return applicableBanners(inputs).find((b) => !inputs.dismissed.has(b.kind));
}
