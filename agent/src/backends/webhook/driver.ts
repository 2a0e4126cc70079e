/**
 * The webhook driver (issue #10 item 7; docs/reference.md admin-console §3 ScriptType webhook: the script backend's
 * Command is an http(s) URL). One JSON POST per change:
 *
 * ```json
 * {"type":"access.granted","timestamp":"2026-01-01T00:00:00.000Z",
 *  "data":{"action":"add","acl":"<ACL Name>","user":"<user name>","ip":"203.0.113.5","cidr":"203.0.113.5/32",
 *          "expires_at":"2026-01-01T08:00:00.000Z"}}
 * ```
 *
 * (`access.revoked` with action `del`, `access.flushed` with action `flush` and no address). Signed the
 * Standard Webhooks way with the ACL's variable `WEBHOOK_SECRET` (`whsec_…`, declared Sensitive on the
 * backend, opened on the agent); `USERNAME`/`PASSWORD`, when set, go as HTTP basic auth. Any 2xx is
 * success; a transport error, 408, 429 or 5xx is retried with backoff under the same `webhook-id`;
 * other statuses fail at once. Like a script, a webhook cannot be read back (`list` is this driver's
 * record since its last flush; a full reconcile is a flush then one add per address).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { AppliedRecord } from "../script/applied.ts";
import { aclVariables, scriptAcl } from "../script/env.ts";
import type { ScriptAction } from "../script/env.ts";
import { signWebhook, webhookKey } from "./sign.ts";

/** Options of a `WebhookDriver`. Times are MILLISECONDS. */
export interface WebhookDriverOptions {
  readonly http: HttpClient;
  /** The http(s) URL posted to. */
  readonly url: string;
  readonly openSecret: (sealed: string) => string;
  /** Attempts per change (default 4). */
  readonly attempts?: number;
  /** Wait before the first retry, doubled each time (default 500). */
  readonly backoffMs?: number;
  /** Timeout of one attempt (default 10,000). */
  readonly timeoutMs?: number;
  /** Unix time in SECONDS for `webhook-timestamp` (default the system clock). */
  readonly nowSeconds?: () => number;
}

const TYPES: Readonly<Record<ScriptAction, string>> = {
  add: "access.granted",
  del: "access.revoked",
  flush: "access.flushed",
};

/** Posts signed changes; see the module documentation. */
export class WebhookDriver implements Driver {
  /** The BackendConfig key handled: `script`. */
  readonly type = "script";
  readonly concurrency = 4;
  readonly #o: WebhookDriverOptions;
  readonly #applied = new AppliedRecord();

  /** @throws Error when `url` is not http(s). */
  constructor(options: WebhookDriverOptions) {
    const u = new URL(options.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("a webhook URL must be http or https");
    this.#o = options;
  }

  /** Posts `add` for each entry not yet expired at `now` (epoch ms). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const out: EntryOutcome[] = [];
    for (const e of entries) out.push(e.expiresAt <= now ? { ip: e.ip, ok: true } : await this.#one(target, "add", e));
    return out;
  }

  /** Posts `del` for each address. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const out: EntryOutcome[] = [];
    for (const ip of ips) out.push(await this.#one(target, "del", { ip, expiresAt: 0 }));
    return out;
  }

  /** What this driver posted since its last flush. */
  async list(target: Target): Promise<string[]> {
    return this.#applied.list(scriptAcl(target).Name);
  }

  /** Posts `flush`, then `add` per entry. @throws Error when the flush is refused. */
  async replace(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const error = await this.#post(target, "flush", null);
    if (error !== null) throw new Error(error);
    this.#applied.flushed(scriptAcl(target).Name);
    return this.add(target, entries, now);
  }

  async #one(target: Target, action: "add" | "del", entry: Entry): Promise<EntryOutcome> {
    const n = normaliseIp(entry.ip);
    if (!n) return { ip: entry.ip, ok: false, error: `invalid IP address "${entry.ip}"` };
    const error = await this.#post(target, action, { ...entry, ip: n.ip, family: n.family });
    if (error !== null) return { ip: entry.ip, ok: false, error };
    this.#applied.note(scriptAcl(target).Name, action, n.ip);
    return { ip: entry.ip, ok: true };
  }

  /** Delivers one change with retries; null on a 2xx, else the error text (never a secret). */
  async #post(
    target: Target,
    action: ScriptAction,
    entry: (Entry & { family: "inet" | "inet6" }) | null,
  ): Promise<string | null> {
    let vars: Record<string, string>;
    let key: Buffer;
    try {
      vars = aclVariables(target, this.#o.openSecret);
      const secret = vars["WEBHOOK_SECRET"] ?? "";
      if (secret === "") return "the ACL has no WEBHOOK_SECRET to sign the webhook with";
      key = webhookKey(secret);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    const acl = scriptAcl(target).Name;
    const body = JSON.stringify({
      type: TYPES[action],
      timestamp: new Date().toISOString(),
      data: {
        action,
        acl,
        ...(entry
          ? {
              user: entry.user ?? "",
              ip: entry.ip,
              cidr: `${entry.ip}/${entry.family === "inet" ? 32 : 128}`,
              ...(action === "add" ? { expires_at: new Date(entry.expiresAt).toISOString() } : {}),
            }
          : {}),
      },
    });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (vars["USERNAME"] || vars["PASSWORD"])
      headers["authorization"] =
        `Basic ${Buffer.from(`${vars["USERNAME"] ?? ""}:${vars["PASSWORD"] ?? ""}`, "utf8").toString("base64")}`;
    const id = `msg_${randomUUID()}`;
    const attempts = Math.max(1, this.#o.attempts ?? 4);
    let last = "";
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep((this.#o.backoffMs ?? 500) * 2 ** (attempt - 1));
      const ts = this.#o.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
      try {
        const r = await this.#o.http.request({
          method: "POST",
          url: this.#o.url,
          headers: { ...headers, ...signWebhook(key, id, ts, body) },
          body,
          timeoutMs: this.#o.timeoutMs ?? 10_000,
        });
        if (r.status >= 200 && r.status < 300) return null;
        last = `webhook answered HTTP ${r.status}${r.body.trim() ? `: ${r.body.trim().slice(0, 200)}` : ""}`;
        if (!(r.status === 408 || r.status === 429 || r.status >= 500)) return last;
      } catch (err) {
        last = `webhook not reached: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    return `${last} (after ${attempts} attempts)`;
  }
}
