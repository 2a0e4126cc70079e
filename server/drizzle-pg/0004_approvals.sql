CREATE TABLE "approval_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"grant_id" text NOT NULL,
	"acl_id" text NOT NULL,
	"session_id" text NOT NULL,
	"user_id" text NOT NULL,
	"user_name" text NOT NULL,
	"ip_address" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"decided_at" bigint,
	"decided_by" text DEFAULT '' NOT NULL,
	"decision_reason" text DEFAULT '' NOT NULL,
	"grant_minutes" integer
);
--> statement-breakpoint
ALTER TABLE "acls" ADD COLUMN "requires_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "acls" ADD COLUMN "approver_group_ids" json DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "acls" ADD COLUMN "approval_timeout_seconds" integer DEFAULT 3600 NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_grant_id_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_acl_id_acls_id_fk" FOREIGN KEY ("acl_id") REFERENCES "public"."acls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approval_requests_state_idx" ON "approval_requests" USING btree ("state","expires_at");--> statement-breakpoint
CREATE INDEX "approval_requests_grant_idx" ON "approval_requests" USING btree ("grant_id","created_at");--> statement-breakpoint
CREATE INDEX "approval_requests_created_idx" ON "approval_requests" USING btree ("created_at");