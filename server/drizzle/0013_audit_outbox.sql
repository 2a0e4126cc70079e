-- The audit log's followers (docs/decisions.md "Following the audit log"): the GELF forwarder and the webhook
-- dispatcher's collection no longer follow the log by id (on PostgreSQL a transaction can commit a lower id after a
-- higher one was read); a trigger queues each new entry for every active follower in the entry's own transaction.
CREATE TABLE `audit_followers` (
	`name` text PRIMARY KEY NOT NULL,
	`active` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_outbox` (
	`follower` text NOT NULL,
	`audit_id` integer NOT NULL,
	`claimed_until` integer,
	PRIMARY KEY(`follower`, `audit_id`),
	FOREIGN KEY (`audit_id`) REFERENCES `audit_log`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_outbox_audit_idx` ON `audit_outbox` (`audit_id`);--> statement-breakpoint
-- Carried over: GELF forwarded while GELFForwardedID >= 0, the webhooks are followed while one is enabled, and the
-- entries neither had handled yet are queued.
INSERT INTO `audit_followers` (`name`, `active`) VALUES
  ('gelf', EXISTS (SELECT 1 FROM `settings` WHERE `key` = 'GELFForwardedID' AND CAST(`value` AS integer) >= 0)),
  ('webhooks', EXISTS (SELECT 1 FROM `webhooks` WHERE `enabled` = 1));
--> statement-breakpoint
INSERT INTO `audit_outbox` (`follower`, `audit_id`)
  SELECT 'gelf', `id` FROM `audit_log`
  WHERE `id` > (SELECT CAST(`value` AS integer) FROM `settings` WHERE `key` = 'GELFForwardedID' AND CAST(`value` AS integer) >= 0);
--> statement-breakpoint
INSERT INTO `audit_outbox` (`follower`, `audit_id`)
  SELECT 'webhooks', `id` FROM `audit_log`
  WHERE EXISTS (SELECT 1 FROM `webhooks` WHERE `enabled` = 1)
    AND `id` > coalesce((SELECT `audit_id` FROM `webhook_cursor` WHERE `id` = 1), (SELECT min(`since_audit_id`) FROM `webhooks`));
--> statement-breakpoint
CREATE TRIGGER `audit_log_insert_outbox` AFTER INSERT ON `audit_log` BEGIN INSERT INTO `audit_outbox` (`follower`, `audit_id`) SELECT `name`, NEW.`id` FROM `audit_followers` WHERE `active` = 1; END;
--> statement-breakpoint
DROP TABLE `webhook_cursor`;