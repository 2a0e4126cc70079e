import { describe, expect, it } from "vitest";
import { Errors } from "../errors.ts";
import { envVarNameProblem, isReservedEnvVarName } from "./backend.ts";

describe("script variable names", () => {
  it("refuse the agent's own names, and allow the spec's defaults URL, USERNAME, PASSWORD, POLICY", () => {
    for (const name of ["knoc_action", "KNOC_USERNAME", "Knoc_Cidr", "aclname", "ipaddr", "username"])
      expect(isReservedEnvVarName(name), name).toBe(true);
    for (const name of ["URL", "USERNAME", "PASSWORD", "POLICY", "WEBHOOK_SECRET", "knoc_other"])
      expect(isReservedEnvVarName(name), name).toBe(false);
    expect(envVarNameProblem("USERNAME", "p")).toBeNull();
    expect(envVarNameProblem("knoc_ipaddr", "p")).toEqual({
      error: Errors.invalidEnvVarName,
      Extra: "p: knoc_ipaddr is reserved",
    });
  });
});
