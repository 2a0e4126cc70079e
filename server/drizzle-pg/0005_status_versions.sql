-- The status read's change counters (the SQLite migration 0012_status_versions; services/status-cache.ts; issue #13 item 2): user_sessions.status_version is
-- raised on every write to the session's grants and approval requests; `assignments` on every write to user_acls, group_acls and
-- group_users; `licenses` on every write to licenses; `status_settings` on every write to a setting the user
-- status shows (NewUserDashboard). Triggers, so that no write path can forget them.
ALTER TABLE "user_sessions" ADD COLUMN "status_version" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
INSERT INTO "change_counters" ("name", "value") VALUES ('assignments', 0), ('licenses', 0), ('status_settings', 0);
--> statement-breakpoint
CREATE TRIGGER "user_acls_insert_counts" AFTER INSERT ON "user_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "user_acls_update_counts" AFTER UPDATE ON "user_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "user_acls_delete_counts" AFTER DELETE ON "user_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_acls_insert_counts" AFTER INSERT ON "group_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_acls_update_counts" AFTER UPDATE ON "group_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_acls_delete_counts" AFTER DELETE ON "group_acls" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_users_insert_counts" AFTER INSERT ON "group_users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_users_update_counts" AFTER UPDATE ON "group_users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "group_users_delete_counts" AFTER DELETE ON "group_users" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('assignments');
--> statement-breakpoint
CREATE TRIGGER "licenses_insert_counts" AFTER INSERT ON "licenses" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('licenses');
--> statement-breakpoint
CREATE TRIGGER "licenses_update_counts" AFTER UPDATE ON "licenses" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('licenses');
--> statement-breakpoint
CREATE TRIGGER "licenses_delete_counts" AFTER DELETE ON "licenses" FOR EACH ROW EXECUTE FUNCTION "postern_count_change"('licenses');
--> statement-breakpoint
CREATE TRIGGER "settings_insert_counts" AFTER INSERT ON "settings" FOR EACH ROW WHEN (NEW."key" = 'NewUserDashboard') EXECUTE FUNCTION "postern_count_change"('status_settings');
--> statement-breakpoint
CREATE TRIGGER "settings_update_counts" AFTER UPDATE ON "settings" FOR EACH ROW WHEN (NEW."key" = 'NewUserDashboard' OR OLD."key" = 'NewUserDashboard') EXECUTE FUNCTION "postern_count_change"('status_settings');
--> statement-breakpoint
CREATE TRIGGER "settings_delete_counts" AFTER DELETE ON "settings" FOR EACH ROW WHEN (OLD."key" = 'NewUserDashboard') EXECUTE FUNCTION "postern_count_change"('status_settings');
--> statement-breakpoint
CREATE FUNCTION "postern_count_session_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'DELETE' THEN
		UPDATE "user_sessions" SET "status_version" = "status_version" + 1 WHERE "id" = NEW."session_id";
	END IF;
	IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."session_id" <> NEW."session_id") THEN
		UPDATE "user_sessions" SET "status_version" = "status_version" + 1 WHERE "id" = OLD."session_id";
	END IF;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "grants_insert_session_status" AFTER INSERT ON "grants" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();
--> statement-breakpoint
CREATE TRIGGER "grants_update_session_status" AFTER UPDATE ON "grants" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();
--> statement-breakpoint
CREATE TRIGGER "grants_delete_session_status" AFTER DELETE ON "grants" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();

--> statement-breakpoint
CREATE TRIGGER "approval_requests_insert_session_status" AFTER INSERT ON "approval_requests" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();
--> statement-breakpoint
CREATE TRIGGER "approval_requests_update_session_status" AFTER UPDATE ON "approval_requests" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();
--> statement-breakpoint
CREATE TRIGGER "approval_requests_delete_session_status" AFTER DELETE ON "approval_requests" FOR EACH ROW EXECUTE FUNCTION "postern_count_session_status"();