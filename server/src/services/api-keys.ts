/**
 * API keys and what they open (docs/reference.md admin-console §2 "API keys", §3 "API key", §5 API key rules, §6
 * scopes, §7 /admin/api-keys and "Public allowlist"; docs/reference.md design "Security": `prefix_id_secret` shown
 * once, only a SHA-256 of the secret stored, scopes and expiry enforced, AllowedFrom checked against
 * the client address).
 *
 * - Admin CRUD: create (the plaintext key is returned once), list, get, update (AllowedFrom only),
 *   delete; each writes its audit entry in the same transaction.
 * - `authenticate`: checks a presented key (constant-time), its expiry, AllowedFrom and scope.
 * - The public allowlist of a passive ACL (`readAllowlist`) and the `user.sessions` API
 *   (`liveSessions`, `endSession`).
 *
 * Key format: `pst_<key id, 32 hex digits without dashes>_<secret: 32 random bytes, base64url>`.
 */
import { timingSafeEqual } from "node:crypto";
import {
  ApiKeyScopeName,
  DEFAULT_ALLOWED_FROM,
  allowlistReadScope,
  cidrContains,
  parseApiKeyScope,
  parseCidr,
  Errors,
} from "@postern/shared";
import type { AllowedFromEntry, ApiKey, ApiKeyCreate, ApiKeyUpdate, ApiSession } from "@postern/shared";
import type { Db, Tx } from "../db/index.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/api-keys.ts";
import type { ApiKeyRow } from "../repositories/api-keys.ts";
import { endSessions } from "../repositories/users.ts";
import { AllowlistCache } from "./allowlist-cache.ts";
import type { AllowlistBodies } from "./allowlist-cache.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import { writeFoldedAudit } from "./audit-fold.ts";
import type { AuditActionKind } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId, randomToken, sha256 } from "./auth/tokens.ts";
import type { Ops } from "./grants/engine.ts";
import { Service } from "./service.ts";

/** The fixed first part of every key. */
export const API_KEY_PREFIX = "pst";
/** Bytes of randomness in a key's secret (256 bits). */
export const API_KEY_SECRET_BYTES = 32;
/** LastUsedAt is written at most this often per key, in milliseconds (one minute). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** `pst_<32 hex>_<43 base64url>`: the id without dashes, then the secret. */
const KEY_PATTERN = /^pst_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
/** Compared against when the key id is unknown, so both paths cost the same. */
const DUMMY_HASH = sha256(randomToken(API_KEY_SECRET_BYTES));

/** Builds the plaintext key of key `id` with `secret`. */
export function formatApiKey(id: string, secret: string): string {
  return `${API_KEY_PREFIX}_${id.replaceAll("-", "")}_${secret}`;
}

/** Splits a presented key into the key id (UUID with dashes) and secret; null when malformed. */
export function parseApiKey(presented: string): { id: string; secret: string } | null {
  const m = KEY_PATTERN.exec(presented);
  if (!m) return null;
  const h = m[1]!;
  return {
    id: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    secret: m[2]!,
  };
}

/**
 * The API key presented in an `Authorization` header value: `Bearer <key>`, or HTTP Basic whose
 * password is the key (the user name is ignored; when the password is empty the user name is taken,
 * so `curl -u <key>:` works). Returns undefined when no header was sent, and "" for a header that
 * carries no usable key (another scheme, bad base64, empty) — a presented but malformed key.
 */
export function keyFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header.trim());
  if (!m) return "";
  const scheme = m[1]!.toLowerCase();
  if (scheme === "bearer") return m[2]!;
  if (scheme !== "basic") return "";
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(m[2]!)) return "";
  const decoded = Buffer.from(m[2]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return "";
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  return password !== "" ? password : user;
}

/** Constant-time equality of two strings (compares their SHA-256, so lengths do not leak). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(sha256(a), "hex"), Buffer.from(sha256(b), "hex"));
}

/** True when `ip` lies inside one of the prefixes (prefixes that do not parse never match). */
function insideAny(prefixes: readonly { Prefix: string }[], ip: string): boolean {
  return prefixes.some((p) => {
    const c = parseCidr(p.Prefix);
    return c !== null && cidrContains(c, ip);
  });
}

/** Config.allowlist of an allowlist ACL, read defensively (the ACL service validated it on write). */
interface AllowlistConfig {
  Token: string;
  ApiKeyId: string;
  AllowAccessByIp: boolean;
  AllowedIpAddresses: { Prefix: string; Note: string }[];
}
function allowlistConfig(config: Record<string, unknown>): AllowlistConfig {
  const raw = (config["allowlist"] ?? {}) as Partial<AllowlistConfig>;
  return {
    Token: typeof raw.Token === "string" ? raw.Token : "",
    ApiKeyId: typeof raw.ApiKeyId === "string" ? raw.ApiKeyId.toLowerCase() : "",
    AllowAccessByIp: raw.AllowAccessByIp === true,
    AllowedIpAddresses: Array.isArray(raw.AllowedIpAddresses) ? raw.AllowedIpAddresses : [],
  };
}

/** Where a refusal is audited: the action kind and, for an allowlist, the ACL's description. */
export interface RefusalAudit {
  action: AuditActionKind;
  aclDescription?: string;
}

/** API keys: admin CRUD, authentication, the public allowlist and the user-sessions API. */
export class ApiKeyService extends Service {
  /** The allowlists' bodies, kept ready between changes. */
  private readonly allowlists = new AllowlistCache(this.db, this.clock);
  /**
   * Scopes a key has through allowlist ACLs whose Config.allowlist.ApiKeyId names it (the Knoc
   * wizard creates the key first, then the ACL pointing at it), keyed by key id.
   */
  private async linkedScopes(q: Db | Tx): Promise<Map<string, string[]>> {
    const linked = new Map<string, string[]>();
    for (const acl of await repo.listAllowlistAcls(q)) {
      const keyId = allowlistConfig(acl.config).ApiKeyId;
      if (!keyId) continue;
      const list = linked.get(keyId) ?? [];
      list.push(allowlistReadScope(acl.id));
      linked.set(keyId, list);
    }
    return linked;
  }

  private async toWire(q: Db | Tx, row: ApiKeyRow, linked: Map<string, string[]>): Promise<ApiKey> {
    const scopes = [...new Set([...row.scopes, ...(linked.get(row.id) ?? [])])];
    const parsed = scopes.map(parseApiKeyScope);
    const aclIds = parsed.flatMap((p) => (p?.name === ApiKeyScopeName.allowlistRead ? [p.id] : []));
    const userIds = parsed.flatMap((p) => (p?.name === ApiKeyScopeName.userAuth ? [p.id] : []));
    const descriptions = await repo.aclDescriptions(q, aclIds);
    const people = await repo.usersByIds(q, userIds);
    const resources = parsed.map((p) => {
      if (p === null) return "";
      if (p.name === ApiKeyScopeName.allowlistRead) return descriptions.get(p.id) ?? `deleted ACL ${p.id}`;
      if (p.name === ApiKeyScopeName.userAuth) return people.get(p.id)?.userName ?? `deleted user ${p.id}`;
      return p.name === ApiKeyScopeName.agentRegister ? "Agent registration" : "User sessions";
    });
    return {
      ID: row.id,
      Name: row.name,
      Resources: [...new Set(resources.filter((r) => r !== ""))],
      Scopes: scopes,
      AllowedFrom: row.allowedFrom,
      ExpiredAfter: iso(row.expiredAfter),
      CreatedAt: iso(row.createdAt) ?? "",
      LastUsedAt: iso(row.lastUsedAt),
    };
  }

  /** Lists every key by name (docs/reference.md admin-console §2 "API keys"); never carries a secret. */
  async list(): Promise<ApiKey[]> {
    const linked = await this.linkedScopes(this.db);
    return Promise.all((await repo.listApiKeys(this.db)).map((r) => this.toWire(this.db, r, linked)));
  }

  /** Reads one key; 404 "Not found" when unknown. */
  async get(id: string): Promise<ApiKey> {
    const row = await repo.getApiKey(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "API key");
    return await this.toWire(this.db, row, await this.linkedScopes(this.db));
  }

  /**
   * Checks the requested scopes against the database (docs/reference.md admin-console §5): `allowlist.read:{aclId}`
   * needs an allowlist ACL with that id — when no allowlist ACL exists at all, 400 "You must create
   * an allowlist before you can create an API key"; otherwise an unknown id is 400 "Bad request"
   * (Extra `Scopes: <scope>: …`). `user.auth:{userId}` needs an existing user of AuthType apikey
   * (400 "Bad request" otherwise). Returns the scopes without duplicates.
   */
  private async checkScopes(tx: Tx, scopes: readonly string[]): Promise<string[]> {
    const unique = [...new Set(scopes)];
    const parsed = unique.map((s) => ({ scope: s, p: parseApiKeyScope(s) }));
    const allowlists = parsed.filter((x) => x.p?.name === ApiKeyScopeName.allowlistRead);
    if (allowlists.length > 0 && (await repo.listAllowlistAcls(tx)).length === 0)
      throw new AppError(Errors.createAllowlistFirst);
    for (const { scope, p } of parsed) {
      if (p === null) throw new AppError(Errors.badRequest, `Scopes: ${scope}: Invalid scope`);
      if (p.name === ApiKeyScopeName.allowlistRead && !(await repo.getAllowlistAcl(tx, p.id))) {
        throw new AppError(Errors.badRequest, `Scopes: ${scope}: no allowlist ACL has this id`);
      }
      if (p.name === ApiKeyScopeName.userAuth && (await repo.usersByIds(tx, [p.id])).get(p.id)?.authType !== "apikey") {
        throw new AppError(Errors.badRequest, `Scopes: ${scope}: no API-key user has this id`);
      }
    }
    return unique;
  }

  /**
   * Creates a key (POST /admin/api-keys). Rules: Name unique (409 "An API key with that name
   * already exists"); ExpiredAfter a time after now (400 "Bad request", Extra `ExpiredAfter: …`) or
   * null for never; scopes as in `checkScopes`; AllowedFrom defaults to 0.0.0.0/0 and ::/0.
   * Stores only the SHA-256 of the secret; the answer carries `PlaintextKey`, shown this once.
   */
  async create(input: ApiKeyCreate, actor: Actor): Promise<ApiKey> {
    const now = this.clock.now();
    const expiredAfter = input.ExpiredAfter === null ? null : Date.parse(input.ExpiredAfter);
    if (expiredAfter !== null && expiredAfter <= now)
      throw new AppError(Errors.badRequest, "ExpiredAfter: must be in the future (or null for never)");
    const id = newId();
    const secret = randomToken(API_KEY_SECRET_BYTES);
    const allowedFrom: AllowedFromEntry[] = (input.AllowedFrom ?? DEFAULT_ALLOWED_FROM).map((e) => ({
      Prefix: e.Prefix,
      Note: e.Note,
    }));
    return await this.db.transaction(async (tx) => {
      const scopes = await this.checkScopes(tx, input.Scopes);
      if (await repo.getApiKeyByName(tx, input.Name)) throw new AppError(Errors.apiKeyNameExists);
      await repo.insertApiKey(tx, {
        id,
        name: input.Name,
        secretHash: sha256(secret),
        scopes,
        allowedFrom,
        expiredAfter,
        createdAt: now,
        lastUsedAt: null,
      });
      await writeAudit(tx, {
        action: AuditAction.apiKeyCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `API key "${input.Name}" (scopes: ${scopes.join(", ") || "none"})`,
      });
      const row = (await repo.getApiKey(tx, id))!;
      return { ...(await this.toWire(tx, row, await this.linkedScopes(tx))), PlaintextKey: formatApiKey(id, secret) };
    });
  }

  /**
   * Updates a key's AllowedFrom (PUT /admin/api-keys/{id}); docs/reference.md admin-console §4: editing may change
   * only the allowed-from list. Name, Scopes and ExpiredAfter may be omitted or echoed as read
   * (Scopes compared as a set); a different value is 400 "Only the allowed-from list of an API key
   * can be changed" with Extra naming the field. 404 when unknown. The ID check ("Mismatching IDs")
   * is the route's.
   */
  async update(id: string, input: ApiKeyUpdate, actor: Actor): Promise<ApiKey> {
    return await this.db.transaction(async (tx) => {
      const row = await repo.getApiKey(tx, id);
      if (!row) throw new AppError(Errors.notFound, "API key");
      const linked = await this.linkedScopes(tx);
      if (input.Name !== undefined && input.Name !== row.name)
        throw new AppError(Errors.onlyAllowedFromEditable, "Name");
      if (input.Scopes !== undefined) {
        const effective = new Set([...row.scopes, ...(linked.get(row.id) ?? [])]);
        const given = new Set(input.Scopes);
        if (![...given].every((s) => effective.has(s)) || !row.scopes.every((s) => given.has(s)))
          throw new AppError(Errors.onlyAllowedFromEditable, "Scopes");
      }
      if (input.ExpiredAfter !== undefined) {
        const given = input.ExpiredAfter === null ? null : Date.parse(input.ExpiredAfter);
        if (given !== row.expiredAfter) throw new AppError(Errors.onlyAllowedFromEditable, "ExpiredAfter");
      }
      if (input.AllowedFrom !== undefined)
        await repo.setAllowedFrom(
          tx,
          id,
          input.AllowedFrom.map((e) => ({ Prefix: e.Prefix, Note: e.Note })),
        );
      const prefixes = (input.AllowedFrom ?? row.allowedFrom).map((e) => e.Prefix).join(", ");
      await writeAudit(tx, {
        action: AuditAction.apiKeyUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `API key "${row.name}" allowed from ${prefixes}`,
      });
      return await this.toWire(tx, (await repo.getApiKey(tx, id))!, linked);
    });
  }

  /**
   * Deletes a key (DELETE /admin/api-keys/{id}); 404 when unknown. Allowlist ACLs whose ApiKeyId
   * named it keep that id, which no longer matches any key. The user sessions the key signed in end
   * in the same transaction and their grants are revoked (`GrantEngine.endDueSessions`, audit
   * sessionExpired); the revocations go to the agents after commit.
   */
  async delete(id: string, actor: Actor): Promise<void> {
    const ops = await this.db.transaction(async (tx) => {
      const row = await repo.getApiKey(tx, id);
      if (!row) throw new AppError(Errors.notFound, "API key");
      await repo.deleteApiKey(tx, id);
      await writeAudit(tx, {
        action: AuditAction.apiKeyDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `API key "${row.name}"`,
      });
      const ops: Ops = new Map();
      await this.engine.endDueSessions(tx, ops);
      return ops;
    });
    this.engine.dispatch(ops);
  }

  /** True when the key has `scope`, stored or through an allowlist ACL whose ApiKeyId names it. */
  private async hasScope(row: ApiKeyRow, scope: string): Promise<boolean> {
    if (row.scopes.includes(scope)) return true;
    const p = parseApiKeyScope(scope);
    if (p?.name !== ApiKeyScopeName.allowlistRead) return false;
    const acl = await repo.getAllowlistAcl(this.db, p.id);
    return acl !== undefined && allowlistConfig(acl.config).ApiKeyId === row.id;
  }

  /** Refuses a presented key or allowlist read: the audit entry is folded per address and minute (audit-fold.ts). */
  private async refuse(
    status: 401 | 403,
    at: number,
    ip: string,
    audit: RefusalAudit,
    description: string,
  ): Promise<never> {
    await writeFoldedAudit(this.db, {
      action: audit.action,
      at,
      ipAddress: ip,
      ...(audit.aclDescription !== undefined ? { aclDescription: audit.aclDescription } : {}),
      description,
    });
    throw new AppError(status === 401 ? Errors.unauthenticated : Errors.unauthorised);
  }

  /**
   * Authenticates a presented key for `requiredScope` from `sourceIp` (the client address, after
   * trusted proxies). Checks, in order: well-formed and known with the right secret (compared in
   * constant time; an unknown id costs the same) and not expired (`ExpiredAfter` ≤ now) — else 401
   * "Unauthorised"; the source inside one AllowedFrom prefix, then the scope — else 403
   * "Unauthorised". The body never says which check failed; each refusal writes an audit entry
   * (`audit.action`, default apiKeyAccessDenied) naming the reason. On success LastUsedAt is set
   * (at most once a minute per key) and the key row is returned.
   */
  async authenticate(
    presented: string | undefined,
    sourceIp: string,
    requiredScope: string,
    audit: RefusalAudit = { action: AuditAction.apiKeyAccessDenied },
  ): Promise<ApiKeyRow> {
    const now = this.clock.now();
    if (presented === undefined)
      return this.refuse(401, now, sourceIp, audit, `no API key presented (scope ${requiredScope})`);
    const parts = parseApiKey(presented);
    const row = parts ? await repo.getApiKey(this.db, parts.id) : undefined;
    const expected = Buffer.from(row?.secretHash ?? DUMMY_HASH, "hex");
    const given = Buffer.from(sha256(parts?.secret ?? ""), "hex");
    const secretOk = expected.length === given.length && timingSafeEqual(expected, given);
    if (!row || !secretOk)
      return this.refuse(401, now, sourceIp, audit, `unknown or malformed API key (scope ${requiredScope})`);
    if (row.expiredAfter !== null && row.expiredAfter <= now)
      return this.refuse(401, now, sourceIp, audit, `API key "${row.name}" has expired`);
    if (!insideAny(row.allowedFrom, sourceIp))
      return this.refuse(403, now, sourceIp, audit, `API key "${row.name}" used from outside its AllowedFrom`);
    if (!(await this.hasScope(row, requiredScope)))
      return this.refuse(403, now, sourceIp, audit, `API key "${row.name}" lacks scope ${requiredScope}`);
    if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      await repo.touchApiKey(this.db, row.id, now);
      return { ...row, lastUsedAt: now };
    }
    return row;
  }

  /**
   * The public allowlist of ACL `aclId` (docs/reference.md admin-console §7 "Public allowlist"): the live published
   * addresses, sorted, as the text and JSON bodies with their ETag, kept ready between changes
   * (allowlist-cache.ts). Access:
   * 1. `aclId` must be an allowlist ACL with a non-empty Token equal to `token` (constant time);
   *    otherwise 404 "Not found", the same answer as for an unknown path, so ACL ids are not revealed.
   * 2. When a key is presented (`presented` not undefined), it alone decides: it must pass
   *    `authenticate` for `allowlist.read:{aclId}` (401 / 403) — IP access is not considered.
   * 3. Without a key: allowed when the ACL's AllowAccessByIp is on and `sourceIp` is inside one of
   *    its AllowedIpAddresses; otherwise 401 (a key would help).
   * Every refusal writes an `allowlistAccessDenied` audit entry, folded per address and minute
   * (audit-fold.ts: one entry, then one with the Count of the rest).
   */
  async readAllowlist(
    aclId: string,
    token: string,
    presented: string | undefined,
    sourceIp: string,
  ): Promise<AllowlistBodies> {
    const now = this.clock.now();
    const acl = await repo.getAllowlistAcl(this.db, aclId.toLowerCase());
    const config = acl ? allowlistConfig(acl.config) : undefined;
    const tokenOk = sameSecret(config?.Token ?? "", token) && config !== undefined && config.Token !== "";
    if (!acl || !config || !tokenOk) {
      await writeFoldedAudit(this.db, {
        action: AuditAction.allowlistAccessDenied,
        at: now,
        ipAddress: sourceIp,
        ...(acl ? { aclDescription: acl.description } : {}),
        description: acl ? "wrong allowlist token" : `no allowlist ACL ${aclId.slice(0, 64)}`,
      });
      throw new AppError(Errors.notFound);
    }
    const audit: RefusalAudit = { action: AuditAction.allowlistAccessDenied, aclDescription: acl.description };
    if (presented !== undefined) {
      await this.authenticate(presented, sourceIp, allowlistReadScope(acl.id), audit);
    } else if (!(config.AllowAccessByIp && insideAny(config.AllowedIpAddresses, sourceIp))) {
      return this.refuse(
        401,
        now,
        sourceIp,
        audit,
        config.AllowAccessByIp ? "no API key, and the source is outside the allowed addresses" : "no API key presented",
      );
    }
    return await this.allowlists.read(acl.id);
  }

  /** Live user sessions (GET /api/v1/sessions, scope user.sessions), oldest first. */
  async liveSessions(): Promise<ApiSession[]> {
    return (await repo.listLiveSessions(this.db, this.clock.now())).map((s) => ({
      ID: s.id,
      UserName: s.userName,
      Created: iso(s.createdAt) ?? "",
      Ends: iso(s.endsAt) ?? "",
      IPAddress: s.ipAddress,
    }));
  }

  /**
   * Ends a live user session and revokes its grants (DELETE /api/v1/sessions/{id}, scope
   * user.sessions): in one transaction the grants are revoked, the session ended (reason
   * "apiKey") and `sessionDeleted` audited (the key's name in the description); the revocations go
   * to the agents after commit. 404 "Not found" when the session is unknown or no longer live.
   */
  async endSession(sessionId: string, key: ApiKeyRow, ip: string): Promise<void> {
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const session = await repo.getLiveSession(tx, sessionId, now);
      if (!session) throw new AppError(Errors.notFound, "session");
      const revokeOps = await this.engine.revokeForSessions(tx, [session.id]);
      await endSessions(tx, [session.id], now, "apiKey");
      await writeAudit(tx, {
        action: AuditAction.sessionDeleted,
        at: now,
        userName: session.userName,
        ipAddress: ip,
        description: `ended with API key "${key.name}"`,
      });
      return revokeOps;
    });
    this.engine.dispatch(ops);
  }
}
