import { defineConfig } from "drizzle-kit";

// The PostgreSQL migrations (issue #12 item 2), generated from server/src/db/schema-pg.ts, the mirror
// of schema.ts: change both schemas, then `npm run db:generate` and `npm run db:generate:pg` with the
// same --name, commit, and CI checks both (`drizzle-kit check` per config, schema-parity.test.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/src/db/schema-pg.ts",
  out: "./server/drizzle-pg",
});
