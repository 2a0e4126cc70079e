/** The HAProxy driver folder's registration: capability detection and one `HaproxyBackend` per backend. */
import type { DriverDefinition } from "../driver.ts";
import { detectHaproxy } from "./capability.ts";
import { HaproxyBackend } from "./driver.ts";

/** haproxy: ACL `#ID` over the runtime API, the ACL file kept in step. */
export const haproxyDriver: DriverDefinition = {
  type: "haproxy",
  detect: detectHaproxy,
  create: (ctx) => new HaproxyBackend(ctx.haproxy ?? {}),
};
