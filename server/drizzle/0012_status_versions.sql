-- The status read's change counters (services/status-cache.ts; issue #13 item 2): user_sessions.status_version is
-- raised on every write to the session's grants and approval requests; `assignments` on every write to user_acls, group_acls and
-- group_users; `licenses` on every write to licenses; `status_settings` on every write to a setting the user
-- status shows (NewUserDashboard). Triggers, so that no write path can forget them.
ALTER TABLE `user_sessions` ADD `status_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
INSERT INTO `change_counters` (`name`, `value`) VALUES ('assignments', 0), ('licenses', 0), ('status_settings', 0);
--> statement-breakpoint
CREATE TRIGGER `user_acls_insert_counts` AFTER INSERT ON `user_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `user_acls_update_counts` AFTER UPDATE ON `user_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `user_acls_delete_counts` AFTER DELETE ON `user_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_acls_insert_counts` AFTER INSERT ON `group_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_acls_update_counts` AFTER UPDATE ON `group_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_acls_delete_counts` AFTER DELETE ON `group_acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_users_insert_counts` AFTER INSERT ON `group_users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_users_update_counts` AFTER UPDATE ON `group_users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `group_users_delete_counts` AFTER DELETE ON `group_users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'assignments'; END;
--> statement-breakpoint
CREATE TRIGGER `licenses_insert_counts` AFTER INSERT ON `licenses` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'licenses'; END;
--> statement-breakpoint
CREATE TRIGGER `licenses_update_counts` AFTER UPDATE ON `licenses` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'licenses'; END;
--> statement-breakpoint
CREATE TRIGGER `licenses_delete_counts` AFTER DELETE ON `licenses` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'licenses'; END;
--> statement-breakpoint
CREATE TRIGGER `settings_insert_counts` AFTER INSERT ON `settings` WHEN NEW.`key` = 'NewUserDashboard' BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'status_settings'; END;
--> statement-breakpoint
CREATE TRIGGER `settings_update_counts` AFTER UPDATE ON `settings` WHEN NEW.`key` = 'NewUserDashboard' OR OLD.`key` = 'NewUserDashboard' BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'status_settings'; END;
--> statement-breakpoint
CREATE TRIGGER `settings_delete_counts` AFTER DELETE ON `settings` WHEN OLD.`key` = 'NewUserDashboard' BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'status_settings'; END;
--> statement-breakpoint
CREATE TRIGGER `grants_insert_session_status` AFTER INSERT ON `grants` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = NEW.`session_id`; END;
--> statement-breakpoint
CREATE TRIGGER `grants_update_session_status` AFTER UPDATE ON `grants` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = NEW.`session_id`; UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE OLD.`session_id` <> NEW.`session_id` AND `id` = OLD.`session_id`; END;
--> statement-breakpoint
CREATE TRIGGER `grants_delete_session_status` AFTER DELETE ON `grants` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = OLD.`session_id`; END;

--> statement-breakpoint
CREATE TRIGGER `approval_requests_insert_session_status` AFTER INSERT ON `approval_requests` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = NEW.`session_id`; END;
--> statement-breakpoint
CREATE TRIGGER `approval_requests_update_session_status` AFTER UPDATE ON `approval_requests` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = NEW.`session_id`; UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE OLD.`session_id` <> NEW.`session_id` AND `id` = OLD.`session_id`; END;
--> statement-breakpoint
CREATE TRIGGER `approval_requests_delete_session_status` AFTER DELETE ON `approval_requests` BEGIN UPDATE `user_sessions` SET `status_version` = `status_version` + 1 WHERE `id` = OLD.`session_id`; END;