DROP INDEX `grants_acl_status_idx`;--> statement-breakpoint
CREATE INDEX `grants_acl_status_expiry_idx` ON `grants` (`acl_id`,`status`,`expires_at`);