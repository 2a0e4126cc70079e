/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, `../shared/vendors.md` §10): headers
 * `webhook-id`, `webhook-timestamp` (unix SECONDS) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, keyed with the base64-decoded part of a `whsec_…` secret.
 */
import { createHmac } from "node:crypto";

/** The key bytes of a `whsec_<base64>` secret (a bare base64 secret is accepted too). @throws Error when it is not base64. */
export function webhookKey(secret: string): Buffer {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new Error("WEBHOOK_SECRET must be whsec_ followed by base64");
  return Buffer.from(b64, "base64");
}

/** The three Standard Webhooks headers of one delivery attempt. */
export function signWebhook(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const mac = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSeconds), "webhook-signature": `v1,${mac}` };
}
