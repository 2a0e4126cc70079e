/**
 * The card/list toggle of the new dashboard (docs/reference.md user-portal §2, licensed users only).
 */
import { useAtom } from "jotai";
import { useLingui } from "@lingui/react/macro";
import type { DashboardView } from "../../ui/lib/storage.ts";
import { viewAtom } from "../state/atoms.ts";
import { GridIcon, ListIcon } from "../../ui/components/icons.tsx";
import { SegmentedControl } from "../../ui/components/SegmentedControl.tsx";

/** Cards or List, bound to viewAtom (stored as `view`). */
export function ViewSwitch() {
  const { t } = useLingui();
  const [view, setView] = useAtom(viewAtom);
  return (
    <SegmentedControl<DashboardView>
      legend={t`View`}
      name="view"
      testId="view-switch"
      value={view}
      onChange={setView}
      options={[
        { value: "card", label: t`Cards`, icon: <GridIcon className="size-4" /> },
        { value: "list", label: t`List`, icon: <ListIcon className="size-4" /> },
      ]}
    />
  );
}
