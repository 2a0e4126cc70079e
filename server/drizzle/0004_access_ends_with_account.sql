ALTER TABLE `user_sessions` ADD `observed_until` integer;--> statement-breakpoint
ALTER TABLE `user_sessions` ADD `api_key_id` text;--> statement-breakpoint
-- Observed addresses recorded before they carried SeenAt age out at the first expiry sweep.
UPDATE `user_sessions` SET `observed_until` = 0 WHERE `ended_at` IS NULL AND `discovered_ips` <> '[]';
