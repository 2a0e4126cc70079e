/** @postern/agent: the agent daemon as a library (tests, embedding): start, enrol, backends, capabilities. */
export { startAgent, AGENT_VERSION } from "./daemon.ts";
export { enrol } from "./enrol.ts";
export { loadConfig } from "./config.ts";
export { createBackends } from "./backends/index.ts";
export { detectCapabilities } from "./capabilities.ts";
export { ExecaRunner } from "./process/execa-runner.ts";
export type { CommandRunner, CommandResult, RunOptions } from "./process/runner.ts";
