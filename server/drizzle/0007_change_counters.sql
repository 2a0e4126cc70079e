CREATE TABLE `change_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `change_counters` (`name`, `value`) VALUES ('acls', 0);
--> statement-breakpoint
CREATE TRIGGER `acls_insert_counts` AFTER INSERT ON `acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'acls'; END;
--> statement-breakpoint
CREATE TRIGGER `acls_update_counts` AFTER UPDATE ON `acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'acls'; END;
--> statement-breakpoint
CREATE TRIGGER `acls_delete_counts` AFTER DELETE ON `acls` BEGIN UPDATE `change_counters` SET `value` = `value` + 1 WHERE `name` = 'acls'; END;
