/**
 * The row action menu of the admin tables (docs/reference.md admin-console §2: "row action menu"): a button named
 * "Actions for <row>" opening a Headless UI menu (arrow keys, Escape, focus return) of actions.
 */
import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { useLingui } from "@lingui/react/macro";

/** One menu entry. */
export interface RowAction {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
}

/** The menu for the row named `name`. */
export function RowMenu({ name, actions }: { name: string; actions: readonly RowAction[] }) {
  const { t } = useLingui();
  return (
    <Menu as="div" className="relative inline-block text-left">
      <MenuButton
        aria-label={t`Actions for ${name}`}
        className="rounded-md px-2 py-1 text-lg leading-none text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
      >
        ⋯
      </MenuButton>
      <MenuItems
        anchor="bottom end"
        className="z-40 min-w-40 rounded-md bg-white p-1 shadow-lg ring-1 ring-slate-200 focus:outline-none dark:bg-slate-900 dark:ring-slate-700"
      >
        {actions.map((action) => (
          <MenuItem key={action.label} disabled={action.disabled ?? false}>
            <button
              type="button"
              onClick={action.onSelect}
              className={`block w-full rounded px-3 py-2 text-left text-sm data-disabled:opacity-50 data-focus:bg-slate-100 dark:data-focus:bg-slate-800 ${
                action.danger ? "text-red-700 dark:text-red-300" : "text-slate-800 dark:text-slate-100"
              }`}
            >
              {action.label}
            </button>
          </MenuItem>
        ))}
      </MenuItems>
    </Menu>
  );
}
