// Type of the catalog compiled by `lingui compile --namespace es` (messages.js, built, not committed).
import type { Messages } from "@lingui/core";

export declare const messages: Messages;
