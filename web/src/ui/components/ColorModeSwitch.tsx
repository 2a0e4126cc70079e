/**
 * Colour-mode choice (docs/reference.md user-portal §1, §2): Light, Dark, System (stored as light, dark, auto).
 */
import { useAtom } from "jotai";
import { useLingui } from "@lingui/react/macro";
import type { ColorMode } from "../lib/colour-mode.ts";
import { colorModeAtom } from "../state/appearance.ts";
import { MonitorIcon, MoonIcon, SunIcon } from "./icons.tsx";
import { SegmentedControl } from "./SegmentedControl.tsx";

/** The three-way switch bound to colorModeAtom. */
export function ColorModeSwitch() {
  const { t } = useLingui();
  const [mode, setMode] = useAtom(colorModeAtom);
  return (
    <SegmentedControl<ColorMode>
      legend={t`Colour mode`}
      name="color-mode"
      testId="color-mode"
      iconsOnly
      value={mode}
      onChange={setMode}
      options={[
        { value: "light", label: t`Light`, icon: <SunIcon className="size-4" /> },
        { value: "dark", label: t`Dark`, icon: <MoonIcon className="size-4" /> },
        { value: "auto", label: t`System`, icon: <MonitorIcon className="size-4" /> },
      ]}
    />
  );
}
