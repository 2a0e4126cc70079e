/** The knocproxy driver folder's registration (its capability is `haproxy`, detected by the haproxy folder). */
import type { DriverDefinition } from "../driver.ts";
import { parseRuntimeAddress } from "../haproxy/driver.ts";
import { KnocproxyDriver } from "./driver.ts";

/** knocproxy: named ACL files over the HAProxy runtime API. */
export const knocproxyDriver: DriverDefinition = {
  type: "knocproxy",
  create: (ctx, backend) =>
    new KnocproxyDriver({
      dir: ctx.knocproxyDir,
      address: parseRuntimeAddress({
        Protocol: backend.config["Protocol"] === "tcp" ? "tcp" : "unix",
        Address: String(backend.config["Address"] ?? ""),
      }),
      ...ctx.haproxy,
    }),
};
