ALTER TABLE `agents` ADD `token_hash` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `token_expires_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `agents_token_hash_unique` ON `agents` (`token_hash`);--> statement-breakpoint
ALTER TABLE `agents` DROP COLUMN `token`;