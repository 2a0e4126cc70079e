/**
 * The licensing service (docs/reference.md admin-console §2 Settings "License", §3 "License status" / "Licensing",
 * §7 GET and POST /admin/settings/license): installs verified licence keys, reports the licence
 * status and the admin status's `Licensing`, and offers the gates of gates.ts over its database.
 * Trusted Ed25519 public keys come from the configuration (POSTERN_LICENSE_PUBLIC_KEYS).
 */
import type { KeyObject } from "node:crypto";
import { overageCount, Errors } from "@postern/shared";
import type { LicensePayload, LicenseStatus, Licensing } from "@postern/shared";
import { AppError } from "../../errors.ts";
import * as repo from "../../repositories/licenses.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { Actor } from "../agents.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";
import { failedToRefresh, isUserLicensed, licensedUserIds, requireLicence, usersAdmitted } from "./gates.ts";
import { parseLicensePublicKeys, verifyLicense } from "./keys.ts";
import { isExpired, licenceState } from "./state.ts";
import { readInstalledLicence, storeLicence } from "./store.ts";

/** Dependencies of the licensing service: the usual ones plus the trusted public keys (base64, see keys.ts). */
export interface LicensingDeps extends ServiceDeps {
  licensePublicKeys?: readonly string[];
}

/** Licensing: install, status, summary and gates. */
export class LicensingService extends Service {
  private readonly trusted: KeyObject[];

  /** Throws an Error when a configured public key cannot be parsed. */
  constructor(deps: LicensingDeps) {
    super(deps);
    this.trusted = parseLicensePublicKeys(deps.licensePublicKeys ?? []);
  }

  /** How many public keys this server trusts. */
  get trustedKeyCount(): number {
    return this.trusted.length;
  }

  /**
   * The licence status (GET /api/admin/settings/license). With no licence: Licensed false, State
   * "unlicensed", ID "" and zero limits. Throws 500 err.failedToRefreshLicenseStatus (Extra: why)
   * when the store is broken (store.ts).
   */
  async status(): Promise<LicenseStatus> {
    const now = this.clock.now();
    const l = await readInstalledLicence(this.db);
    const MachineCount = await repo.countAgents(this.db);
    if (l.kind === "none")
      return {
        Licensed: false,
        ID: "",
        UserLimit: 0,
        SessionLimit: 0,
        MaxMachines: 0,
        MachineCount,
        Expires: null,
        State: "unlicensed",
      };
    if (l.kind === "broken") throw failedToRefresh(l.reason);
    const p = l.payload;
    const State = licenceState(p, await repo.countUsers(this.db), now);
    return {
      Licensed: State !== "expired",
      ID: p.ID,
      UserLimit: p.UserLimit,
      SessionLimit: p.SessionLimit,
      MaxMachines: p.MaxMachines,
      MachineCount,
      Expires: p.Expires,
      State,
    };
  }

  /** The admin status's `Licensing` (docs/reference.md admin-console §3); null when no readable licence is installed. */
  async summary(): Promise<Licensing | null> {
    const l = await readInstalledLicence(this.db);
    if (l.kind !== "installed") return null;
    const p = l.payload;
    return {
      UserLimit: p.UserLimit,
      UserLimitOverage: overageCount(p),
      UserLimitOveragePercentage: p.UserLimitOverage,
      SessionLimit: p.SessionLimit,
      Expires: p.Expires,
    };
  }

  /**
   * Installs a licence key (POST /api/admin/settings/license, `postern license install`), replacing
   * the installed one, with audit entry licenseInstalled; returns the new status. `free` installs the
   * free single-user licence. Throws 400 err.invalidLicenseKey (malformed), err.invalidLicenseSignature
   * (untrusted or tampered) or err.licenseExpired (Expires already passed; the installed licence is
   * kept).
   */
  async install(key: string, actor: Actor): Promise<LicenseStatus> {
    const k = key.trim();
    const payload = verifyLicense(k, this.trusted);
    const now = this.clock.now();
    if (isExpired(payload, now)) throw new AppError(Errors.licenseExpired, payload.Expires ?? undefined);
    await this.db.transaction(async (tx) => {
      await storeLicence(tx, k, payload, now);
      await writeAudit(tx, {
        action: AuditAction.licenseInstalled,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: describe(payload),
      });
    });
    return await this.status();
  }

  /** requireLicence of gates.ts on this database: 403 err.youDoNotHaveALicense without a valid, unexpired licence. */
  async requireLicence(): Promise<LicensePayload> {
    return await requireLicence(this.db, this.clock.now());
  }

  /** Whether the install lets users in (the session status's `Licensed`; gates.ts usersAdmitted). */
  async usersAdmitted(): Promise<boolean> {
    return await usersAdmitted(this.db, this.clock.now());
  }

  /** Whether this user is licensed (gates.ts isUserLicensed). */
  async isUserLicensed(userId: string): Promise<boolean> {
    return await isUserLicensed(this.db, userId, this.clock.now());
  }

  /** The ids of every licensed user (gates.ts licensedUserIds). */
  async licensedUserIds(): Promise<Set<string>> {
    return await licensedUserIds(this.db, this.clock.now());
  }
}

/** One line for the audit log: the licence's id and terms. */
function describe(p: LicensePayload): string {
  return `licence ${p.ID}: ${p.UserLimit} users (+${p.UserLimitOverage}%), ${p.SessionLimit} sessions per user, ${p.MaxMachines} machines, expires ${p.Expires ?? "never"}`;
}
