/**
 * A value shown once to copy (docs/reference.md admin-console §2: the agent's install command and token, a new API
 * key, a Knoc's allowlist URL and key): its label, the value in a monospace block that the Copy
 * button selects, and the button with its 750 ms confirmation.
 */
import { CopyButton } from "../../ui/components/CopyButton.tsx";

/**
 * Props: `id` names the block (its data-testid too), `label` says what it is, `what` ends the Copy
 * button's accessible name ("Copy <what>"), in the sentence's case of the language.
 */
export interface CopyableProps {
  id: string;
  label: string;
  what: string;
  value: string;
}

/** A labelled value with a Copy button. */
export function Copyable({ id, label, what, value }: CopyableProps) {
  return (
    <div className="mt-3">
      <div className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">{label}</div>
      <div className="flex items-start gap-2">
        <code
          id={id}
          data-testid={id}
          className="min-w-0 flex-1 break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-xs text-slate-900 dark:bg-slate-800 dark:text-slate-100"
        >
          {value}
        </code>
        <CopyButton text={value} selectId={id} what={what} />
      </div>
    </div>
  );
}
