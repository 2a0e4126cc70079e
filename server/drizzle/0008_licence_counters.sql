INSERT INTO `change_counters` (`name`, `value`) VALUES ('users', 0);
--> statement-breakpoint
CREATE TRIGGER `users_insert_counts` AFTER INSERT ON `users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'users'; END;
--> statement-breakpoint
CREATE TRIGGER `users_delete_counts` AFTER DELETE ON `users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'users'; END;
--> statement-breakpoint
CREATE TRIGGER `users_rank_counts` AFTER UPDATE OF `created_at`, `id` ON `users` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'users'; END;
