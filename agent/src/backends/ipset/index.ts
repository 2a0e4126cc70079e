/** The ipset driver folder's registration: capability detection and one `IpsetBackend` per backend. */
import type { DriverDefinition } from "../driver.ts";
import { detectIpset } from "./capability.ts";
import { IpsetBackend } from "./driver.ts";

/** ipset: sets created by hand, native timeouts, one `ipset restore` per batch. */
export const ipsetDriver: DriverDefinition = {
  type: "ipset",
  detect: detectIpset,
  create: (ctx) => new IpsetBackend({ runner: ctx.runner, useSudo: ctx.useSudo }),
};
