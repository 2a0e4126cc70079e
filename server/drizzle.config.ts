import { defineConfig } from "drizzle-kit";

// Migrations are generated from server/src/db/schema.ts with a meaningful name
// (`npm run db:generate -- --name <what>`), committed, and checked in CI (`npm run db:check`).
export default defineConfig({
  dialect: "sqlite",
  schema: "./server/src/db/schema.ts",
  out: "./server/drizzle",
});
