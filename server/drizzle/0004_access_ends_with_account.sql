DROP INDEX `user_sessions_user_idx`;--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `observed_until` integer;--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `api_key_id` text;--> statement-breakpoint
CREATE INDEX `user_sessions_observed_idx` ON `user_sessions` (`ended_at`,`observed_until`);--> statement-breakpoint
CREATE INDEX `user_sessions_api_key_idx` ON `user_sessions` (`ended_at`,`api_key_id`);--> statement-breakpoint
CREATE INDEX `user_sessions_user_idx` ON `user_sessions` (`user_id`,`ended_at`);--> statement-breakpoint
CREATE INDEX `users_valid_until_idx` ON `users` (`valid_until`);--> statement-breakpoint
-- Observed addresses recorded before they carried SeenAt age out at the first expiry sweep.
UPDATE `user_sessions` SET `observed_until` = 0 WHERE `ended_at` IS NULL AND `discovered_ips` <> '[]';
