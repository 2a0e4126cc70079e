-- The audit log's followers (the SQLite migration 0013_audit_outbox; docs/decisions.md "Following the audit log"):
-- the GELF forwarder and the webhook dispatcher's collection no longer follow the log by id (a transaction can
-- commit a lower id after a higher one was read); a trigger queues each new entry for every active follower in the
-- entry's own transaction.
CREATE TABLE "audit_followers" (
	"name" text PRIMARY KEY NOT NULL,
	"active" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_outbox" (
	"follower" text NOT NULL,
	"audit_id" bigint NOT NULL,
	"claimed_until" bigint,
	CONSTRAINT "audit_outbox_follower_audit_id_pk" PRIMARY KEY("follower","audit_id")
);
--> statement-breakpoint
ALTER TABLE "audit_outbox" ADD CONSTRAINT "audit_outbox_audit_id_audit_log_id_fk" FOREIGN KEY ("audit_id") REFERENCES "public"."audit_log"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_outbox_audit_idx" ON "audit_outbox" USING btree ("audit_id");--> statement-breakpoint
-- Carried over: GELF forwarded while GELFForwardedID >= 0, the webhooks are followed while one is enabled, and the
-- entries neither had handled yet are queued.
INSERT INTO "audit_followers" ("name", "active") VALUES
  ('gelf', EXISTS (SELECT 1 FROM "settings" WHERE CASE WHEN "key" = 'GELFForwardedID' THEN ("value"::text)::bigint END >= 0)),
  ('webhooks', EXISTS (SELECT 1 FROM "webhooks" WHERE "enabled"));
--> statement-breakpoint
INSERT INTO "audit_outbox" ("follower", "audit_id")
  SELECT 'gelf', "id" FROM "audit_log"
  WHERE "id" > (SELECT CASE WHEN "key" = 'GELFForwardedID' THEN ("value"::text)::bigint END FROM "settings" WHERE "key" = 'GELFForwardedID' AND CASE WHEN "key" = 'GELFForwardedID' THEN ("value"::text)::bigint END >= 0);
--> statement-breakpoint
INSERT INTO "audit_outbox" ("follower", "audit_id")
  SELECT 'webhooks', "id" FROM "audit_log"
  WHERE EXISTS (SELECT 1 FROM "webhooks" WHERE "enabled")
    AND "id" > coalesce((SELECT "audit_id" FROM "webhook_cursor" WHERE "id" = 1), (SELECT min("since_audit_id") FROM "webhooks"));
--> statement-breakpoint
CREATE FUNCTION "postern_queue_audit_entry"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "audit_outbox" ("follower", "audit_id") SELECT "name", NEW."id" FROM "audit_followers" WHERE "active";
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_insert_outbox" AFTER INSERT ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "postern_queue_audit_entry"();
--> statement-breakpoint
DROP TABLE "webhook_cursor" CASCADE;