-- Change counters (the SQLite migrations 0007_change_counters and 0008_licence_counters): triggers raise
-- change_counters.value of a table's name on every write to it, whatever the write path. Row-level like
-- SQLite's (which has no statement-level triggers), so a write of n rows raises the counter by n.
INSERT INTO "change_counters" ("name", "value") VALUES ('acls', 0), ('users', 0);
--> statement-breakpoint
CREATE FUNCTION "postern_count_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "change_counters" SET "value" = "value" + 1 WHERE "name" = TG_ARGV[0];
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "acls_insert_counts" AFTER INSERT ON "acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('acls');
--> statement-breakpoint
CREATE TRIGGER "acls_update_counts" AFTER UPDATE ON "acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('acls');
--> statement-breakpoint
CREATE TRIGGER "acls_delete_counts" AFTER DELETE ON "acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('acls');
--> statement-breakpoint
CREATE TRIGGER "users_insert_counts" AFTER INSERT ON "users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('users');
--> statement-breakpoint
CREATE TRIGGER "users_delete_counts" AFTER DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('users');
--> statement-breakpoint
CREATE TRIGGER "users_rank_counts" AFTER UPDATE OF "created_at", "id" ON "users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('users');
