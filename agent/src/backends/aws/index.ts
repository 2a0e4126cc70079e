/** The AWS driver folder's registration: one `AwsDriver` per backend (no capability needed). */
import type { DriverDefinition } from "../driver.ts";
import { AwsDriver } from "./driver.ts";

/** aws: ingress rules in a security group through the AWS SDK v3. */
export const awsDriver: DriverDefinition = {
  type: "aws",
  create: (ctx, backend) =>
    new AwsDriver({
      accessKeyId: backend.secrets["AccessKeyId"] ?? "",
      secretAccessKey: backend.secrets["SecretAccessKey"] ?? "",
      region: String(backend.config["Region"] ?? ""),
      ...(ctx.endpoints?.["aws"] ? { endpoint: ctx.endpoints["aws"] } : {}),
    }),
};
