/**
 * The admin home's status (docs/reference.md admin-console §2 "Admin home", §3 "Admin status", §7 GET /admin/status).
 * Postern is self-hosted and never phones home: no update feed is consulted, so the available
 * versions are empty and Cloud is false.
 */
import { readFileSync } from "node:fs";
import { MINIMUM_REQUIRED_AGENT_VERSION } from "@postern/shared";
import type { AdminStatus, Licensing } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { countVisibleAcls } from "../repositories/acls.ts";
import { recentAuditEntries } from "../repositories/audit.ts";
import { countLiveSessions } from "../repositories/sessions.ts";
import { countUsers } from "../repositories/users.ts";
import type { Clock } from "../clock.ts";
import { auditEntryToWire } from "./audit-log.ts";
import { getSetting } from "./settings.ts";

/** This server's version (server/package.json). */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** How many recent audit entries the status carries. */
export const ACTIVITY_ENTRIES = 10;

/** Builds GET /admin/status. `licensing` gives the installed licence's summary (null when none). */
export class AdminStatusService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly licensing: () => Promise<Licensing | null>;
  constructor(db: Db, clock: Clock, licensing: () => Promise<Licensing | null>) {
    this.db = db;
    this.clock = clock;
    this.licensing = licensing;
  }

  /** The status now. */
  async status(): Promise<AdminStatus> {
    const now = this.clock.now();
    const activity = (await recentAuditEntries(this.db, ACTIVITY_ENTRIES)).map(auditEntryToWire);
    return {
      SessionCount: await countLiveSessions(this.db, now),
      ACLCount: await countVisibleAcls(this.db),
      UserCount: await countUsers(this.db),
      Activity: activity.map((a) => ({ Entry: a.Entry, Date: a.Date })),
      Cloud: false,
      ServerVersion: SERVER_VERSION,
      AvailableServerVersions: [],
      AvailableAgentVersions: [],
      MinimumRequiredAgentVersion: MINIMUM_REQUIRED_AGENT_VERSION,
      LatestChangeLogsUrl: "",
      ExperimentalFeatures: await getSetting(this.db, "ExperimentalFeatures"),
      Licensing: await this.licensing(),
    };
  }
}
