/**
 * Turns an ACL and its backend into an agent protocol `Target` (shared/src/agent-protocol.ts).
 */
import type { Target } from "@postern/shared";

/** The ACL and backend columns a target needs. */
export interface TargetSource {
  aclId: string;
  aclConfig: Record<string, unknown>;
  backendId: string;
  backendType: string;
  backendConfig: Record<string, unknown>;
}

/**
 * Builds the target of an ACL, or null when its backend type is not enforced by an agent (or the
 * stored configuration lacks the type's fields).
 */
export function toTarget(src: TargetSource): Target | null {
  if (src.backendType === "haproxy") {
    const b = src.backendConfig["haproxy"] as { Protocol: "unix" | "tcp"; Address: string } | undefined;
    const a = src.aclConfig["haproxy"] as { ID: number } | undefined;
    if (!b || !a) return null;
    return { key: src.aclId, backendId: src.backendId, backend: { haproxy: b }, acl: { haproxy: a } };
  }
  if (src.backendType === "ipset") {
    const a = src.aclConfig["ipset"] as { V4SetName: string; V6SetName: string } | undefined;
    if (!a) return null;
    return { key: src.aclId, backendId: src.backendId, backend: { ipset: {} }, acl: { ipset: a } };
  }
  return null;
}
