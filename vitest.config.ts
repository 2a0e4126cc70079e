import { defineConfig } from "vitest/config";

// One vitest run covers every workspace: unit tests next to the code (*.test.ts) and the
// end-to-end tests on real parts under test/ (HAProxy, ipset in namespaces, Chromium).
export default defineConfig({
  test: {
    include: ["{shared,server,agent,cli,web}/src/**/*.test.{ts,tsx}", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real-part tests share kernel state (namespaces, iptables) and ports: run files one at a time.
    fileParallelism: false,
    pool: "forks",
    // POSTERN_TEST_DATABASE=postgres runs the suite on a throw-away PostgreSQL (issue #12 item 7).
    globalSetup: ["test/support/database-setup.ts"],
  },
});
