CREATE TABLE `audit_folds` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`folded` integer DEFAULT 0 NOT NULL,
	`last` text
);
