/**
 * Admin sign-in with a local password, admin session resolution and logout (admin-console §7
 * POST /admin/login, /admin/logout). Admin sessions are separate from user sessions, last
 * ADMIN_SESSION_MINUTES, and need LoginEnabled.
 */
import { eq } from "drizzle-orm";
import { ServerMessage } from "@postern/shared";
import type { Db } from "../../db/index.ts";
import { admins, adminSessions } from "../../db/schema.ts";
import type { Clock } from "../../clock.ts";
import { AppError, invalidSession } from "../../errors.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { newId, randomToken, sha256 } from "./tokens.ts";

/** Length of an admin session in minutes (12 hours). */
export const ADMIN_SESSION_MINUTES = 720;

/** A resolved admin session. */
export interface AdminSessionContext {
  sessionId: string;
  adminId: string;
  userName: string;
  name: string;
}

/** Admin accounts' sign-in and sessions. */
export class AdminSessionService {
  private readonly db: Db;
  private readonly clock: Clock;
  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Creates a local admin (used by `postern admin create`). Throws 409 when the user name exists.
   * The password must already satisfy PasswordSchema (8–64).
   */
  async createLocalAdmin(input: { userName: string; name: string; password: string }): Promise<string> {
    const existing = this.db.select({ id: admins.id }).from(admins).where(eq(admins.userName, input.userName)).get();
    if (existing) throw new AppError(409, "An admin with that username already exists");
    const id = newId();
    const passwordHash = await hashPassword(input.password);
    this.db.transaction((tx) => {
      tx.insert(admins).values({ id, name: input.name, userName: input.userName, authType: "local", passwordHash }).run();
      writeAudit(tx, { action: AuditAction.adminCreated, at: this.clock.now(), adminName: input.userName, description: "created from the command line" });
    });
    return id;
  }

  /** Signs in; throws 401 "Invalid credentials" alike for unknown admin and wrong password, 403 "Login not permitted" when LoginEnabled is off. */
  async login(input: { userName: string; password: string; ip: string }): Promise<{ token: string; session: AdminSessionContext }> {
    const admin = this.db.select().from(admins).where(eq(admins.userName, input.userName)).get();
    const ok = await verifyPassword(admin?.authType === "local" ? admin.passwordHash : null, input.password);
    const now = this.clock.now();
    if (!admin || !ok) {
      writeAudit(this.db, { action: AuditAction.adminLoginFailed, at: now, adminName: input.userName, ipAddress: input.ip });
      throw new AppError(401, ServerMessage.invalidCredentials);
    }
    if (!admin.loginEnabled) throw new AppError(403, ServerMessage.loginNotPermitted);
    const token = randomToken(16);
    const sessionId = newId();
    this.db.transaction((tx) => {
      tx.insert(adminSessions).values({ id: sessionId, tokenHash: sha256(token), adminId: admin.id, createdAt: now, endsAt: now + ADMIN_SESSION_MINUTES * 60_000, ipAddress: input.ip }).run();
      tx.update(admins).set({ lastLogin: now }).where(eq(admins.id, admin.id)).run();
      writeAudit(tx, { action: AuditAction.adminLoggedIn, at: now, adminName: admin.userName, ipAddress: input.ip });
    });
    return { token, session: { sessionId, adminId: admin.id, userName: admin.userName, name: admin.name } };
  }

  /** Resolves a cookie token; throws 401 err.invalidSession when absent, ended, expired or disabled. */
  resolve(token: string | undefined): AdminSessionContext {
    if (!token) throw invalidSession();
    const row = this.db
      .select({ s: adminSessions, a: admins })
      .from(adminSessions)
      .innerJoin(admins, eq(admins.id, adminSessions.adminId))
      .where(eq(adminSessions.tokenHash, sha256(token)))
      .get();
    if (!row || row.s.endedAt !== null || row.s.endsAt <= this.clock.now() || !row.s.verified || !row.a.loginEnabled) throw invalidSession();
    return { sessionId: row.s.id, adminId: row.a.id, userName: row.a.userName, name: row.a.name };
  }

  /** Ends the admin session. */
  logout(session: AdminSessionContext, ip: string): void {
    const now = this.clock.now();
    this.db.transaction((tx) => {
      tx.update(adminSessions).set({ endedAt: now }).where(eq(adminSessions.id, session.sessionId)).run();
      writeAudit(tx, { action: AuditAction.adminLoggedOut, at: now, adminName: session.userName, ipAddress: ip });
    });
  }
}
