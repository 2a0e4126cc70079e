/** The nftables driver folder's registration: capability detection and one `NftablesDriver` per backend. */
import type { DriverDefinition } from "../driver.ts";
import { detectNftables } from "./capability.ts";
import { NftablesDriver } from "./driver.ts";

/** nftables: sets with `flags timeout`, native element timeouts, one `nft -f` transaction per batch. */
export const nftablesDriver: DriverDefinition = {
  type: "nftables",
  detect: detectNftables,
  create: (ctx) => new NftablesDriver({ runner: ctx.runner, useSudo: ctx.useSudo }),
};
