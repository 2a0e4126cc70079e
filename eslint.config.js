// Lint rules for the whole monorepo. Import boundaries are written here with the reason for each ban.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      ".node/**",
      "data/**",
      "web/public/build/**",
      "web/dist/**",
      "test-results/**",
      "server/drizzle/**",
      "server/drizzle-pg/**",
      "web/src/locales/**/*.js",
      "web/src/admin/locales/**/*.js",
      "**/bin/*.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ["**/*.js"], languageOptions: { globals: { ...globals.node } } },
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // shared/ is the wire contract: it must not depend on any implementation.
    files: ["shared/src/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@postern/server*", "@postern/agent*", "@postern/cli*", "@postern/web*"],
              message: "shared imports nothing of ours",
            },
            {
              group: ["better-sqlite3", "drizzle-orm*", "execa", "hono*", "ws"],
              message: "shared stays runtime-neutral (browser and node)",
            },
          ],
        },
      ],
    },
  },
  {
    // web/ runs in the browser: no database, no process spawning, no server code.
    files: ["web/src/**"],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["better-sqlite3", "drizzle-orm*", "execa", "ws", "pino"], message: "web runs in the browser" },
            {
              group: ["@postern/server*", "@postern/agent*", "@postern/cli*"],
              message: "web talks to the server only over HTTP",
            },
          ],
        },
      ],
    },
  },
  {
    // SQL only in repositories (issue #12 item 1): the rules, the agent hub, routes and HTTP plumbing
    // reach data through server/src/repositories/, never through drizzle or the schema themselves.
    files: ["server/src/services/**", "server/src/agent-hub/**", "server/src/routes/**", "server/src/http/**"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["drizzle-orm", "drizzle-orm/*", "better-sqlite3"],
              message: "SQL lives in server/src/repositories/",
            },
            { group: ["**/db/schema", "**/db/schema.ts"], message: "the schema is the repositories' business" },
          ],
        },
      ],
    },
  },
  {
    // hono's `c.var` copies every context variable into a new object on each access (Object.fromEntries);
    // `c.get(name)` reads one (issue #13 item 2: ~4 % of a kept status read's CPU went to those copies).
    files: ["server/src/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='c'][property.name='var']",
          message: "use c.get(name): c.var copies all context variables on every access",
        },
      ],
    },
  },
  {
    // Repositories hold SQL and nothing else: they know no rules.
    files: ["server/src/repositories/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/services/**"], message: "repositories import nothing from services" }] },
      ],
    },
  },
  {
    // The agent talks to the server only over its protocol.
    files: ["agent/src/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@postern/server*", "better-sqlite3", "drizzle-orm*"],
              message: "the agent reaches the server only through the agent protocol",
            },
          ],
        },
      ],
    },
  },
);
