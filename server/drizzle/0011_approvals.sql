CREATE TABLE `approval_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`acl_id` text NOT NULL,
	`session_id` text NOT NULL,
	`user_id` text NOT NULL,
	`user_name` text NOT NULL,
	`ip_address` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`decided_at` integer,
	`decided_by` text DEFAULT '' NOT NULL,
	`decision_reason` text DEFAULT '' NOT NULL,
	`grant_minutes` integer,
	FOREIGN KEY (`grant_id`) REFERENCES `grants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`acl_id`) REFERENCES `acls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approval_requests_state_idx` ON `approval_requests` (`state`,`expires_at`);--> statement-breakpoint
CREATE INDEX `approval_requests_grant_idx` ON `approval_requests` (`grant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `approval_requests_created_idx` ON `approval_requests` (`created_at`);--> statement-breakpoint
ALTER TABLE `acls` ADD `requires_approval` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `acls` ADD `approver_group_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `acls` ADD `approval_timeout_seconds` integer DEFAULT 3600 NOT NULL;