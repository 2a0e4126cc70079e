CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`window_start` integer NOT NULL,
	`blocked_until` integer
);
--> statement-breakpoint
CREATE TABLE `saml_assertions` (
	`id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `saml_assertions_expiry_idx` ON `saml_assertions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `saml_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`audience` text NOT NULL,
	`kiosk` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
