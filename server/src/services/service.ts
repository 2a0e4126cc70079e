/**
 * What every server service is built from: the database, the clock, the grant engine, and the hub's
 * resync (resend an agent its full desired state). Services extend `Service` instead of repeating
 * the wiring.
 */
import type { Db } from "../db/index.ts";
import type { Clock } from "../clock.ts";
import type { GrantEngine } from "./grants/engine.ts";

/** Dependencies of a service. `resync` is a no-op where no agent hub runs (the CLI). */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  engine: GrantEngine;
  resync?: (agentId: string) => void;
}

/** Base of the services: holds their dependencies. */
export abstract class Service {
  protected readonly db: Db;
  protected readonly clock: Clock;
  protected readonly engine: GrantEngine;
  protected readonly resync: (agentId: string) => void;
  constructor(deps: ServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.engine = deps.engine;
    this.resync = deps.resync ?? (() => undefined);
  }
}
