CREATE TABLE `acls` (
	`id` text PRIMARY KEY NOT NULL,
	`parent_id` text,
	`description` text NOT NULL,
	`url` text DEFAULT '' NOT NULL,
	`category` text DEFAULT 'Default' NOT NULL,
	`icon` text DEFAULT '' NOT NULL,
	`click_to_grant` integer DEFAULT false NOT NULL,
	`cgnat_open` integer DEFAULT false NOT NULL,
	`hide_from_users` integer DEFAULT false NOT NULL,
	`hide_from_admins` integer DEFAULT false NOT NULL,
	`auto_browse_users` integer DEFAULT false NOT NULL,
	`maximum_grant_duration_seconds` integer,
	`backend_id` text NOT NULL,
	`ip_exclusions` text NOT NULL,
	`grant_type` text NOT NULL,
	`config` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_by` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`backend_id`) REFERENCES `backends`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `acls_backend_idx` ON `acls` (`backend_id`);--> statement-breakpoint
CREATE TABLE `admin_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`admin_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`ip_address` text NOT NULL,
	`verified` integer DEFAULT true NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`admin_id`) REFERENCES `admins`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_sessions_token_hash_unique` ON `admin_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `admin_sessions_admin_idx` ON `admin_sessions` (`admin_id`);--> statement-breakpoint
CREATE TABLE `admins` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`user_name` text NOT NULL,
	`auth_type` text NOT NULL,
	`password_hash` text,
	`totp_enabled` integer DEFAULT false NOT NULL,
	`totp_secret_enc` text,
	`totp_last_step` integer,
	`login_enabled` integer DEFAULT true NOT NULL,
	`dn` text DEFAULT '' NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_login` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admins_user_name_unique` ON `admins` (`user_name`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token` text NOT NULL,
	`token_used_at` integer,
	`signing_public_key` text,
	`box_public_key` text,
	`version` text DEFAULT '' NOT NULL,
	`capabilities` text DEFAULT '{}' NOT NULL,
	`external_ip` text DEFAULT '' NOT NULL,
	`last_seen` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_name_unique` ON `agents` (`name`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`secret_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`allowed_from` text NOT NULL,
	`expired_after` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_name_unique` ON `api_keys` (`name`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`action` text NOT NULL,
	`user_name` text DEFAULT '' NOT NULL,
	`admin_name` text DEFAULT '' NOT NULL,
	`agent_name` text DEFAULT '' NOT NULL,
	`ip_address` text DEFAULT '' NOT NULL,
	`error_message` text DEFAULT '' NOT NULL,
	`acl_description` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `backends` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`agent_id` text,
	`type` text NOT NULL,
	`config` text NOT NULL,
	`sealed_secrets` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_by` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backends_name_unique` ON `backends` (`name`);--> statement-breakpoint
CREATE TABLE `grant_addresses` (
	`grant_id` text NOT NULL,
	`ip` text NOT NULL,
	PRIMARY KEY(`grant_id`, `ip`),
	FOREIGN KEY (`grant_id`) REFERENCES `grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `grant_addresses_ip_idx` ON `grant_addresses` (`ip`);--> statement-breakpoint
CREATE TABLE `grant_status_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`grant_id` text NOT NULL,
	`status` integer NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`grant_id`) REFERENCES `grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `grant_status_history_grant_idx` ON `grant_status_history` (`grant_id`);--> statement-breakpoint
CREATE TABLE `grants` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`acl_id` text NOT NULL,
	`status` integer NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	`granted_at` integer,
	`expires_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `user_sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`acl_id`) REFERENCES `acls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `grants_session_acl_idx` ON `grants` (`session_id`,`acl_id`);--> statement-breakpoint
CREATE INDEX `grants_acl_status_idx` ON `grants` (`acl_id`,`status`);--> statement-breakpoint
CREATE INDEX `grants_status_expiry_idx` ON `grants` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `group_acls` (
	`group_id` text NOT NULL,
	`acl_id` text NOT NULL,
	PRIMARY KEY(`group_id`, `acl_id`),
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`acl_id`) REFERENCES `acls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `group_acls_acl_idx` ON `group_acls` (`acl_id`);--> statement-breakpoint
CREATE TABLE `group_users` (
	`group_id` text NOT NULL,
	`user_id` text NOT NULL,
	PRIMARY KEY(`group_id`, `user_id`),
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `group_users_user_idx` ON `group_users` (`user_id`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_name_unique` ON `groups` (`name`);--> statement-breakpoint
CREATE TABLE `licenses` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`payload` text NOT NULL,
	`installed_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_acls` (
	`user_id` text NOT NULL,
	`acl_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `acl_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`acl_id`) REFERENCES `acls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_acls_acl_idx` ON `user_acls` (`acl_id`);--> statement-breakpoint
CREATE TABLE `user_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`kiosk` integer DEFAULT false NOT NULL,
	`ip_address` text NOT NULL,
	`discovered_ips` text DEFAULT '[]' NOT NULL,
	`verified` integer DEFAULT true NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_sessions_token_hash_unique` ON `user_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `user_sessions_user_idx` ON `user_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `user_sessions_ends_idx` ON `user_sessions` (`ended_at`,`ends_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`user_name` text NOT NULL,
	`company` text DEFAULT '' NOT NULL,
	`duration_minutes` integer DEFAULT 480 NOT NULL,
	`session_limit` integer,
	`auth_type` text NOT NULL,
	`password_hash` text,
	`totp_enabled` integer DEFAULT false NOT NULL,
	`totp_secret_enc` text,
	`totp_last_step` integer,
	`valid_until` integer,
	`dn` text DEFAULT '' NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`last_login` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_user_name_unique` ON `users` (`user_name`);