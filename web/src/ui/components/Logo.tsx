/**
 * The brand in page headers (docs/reference.md user-portal §1 "a dark-mode logo and a light-mode logo"): the logo
 * uploaded for the current colour mode (GET /api/logo?mode=dark|light, availability cached 600 s),
 * else the product mark.
 */
import { useEffect, useState } from "react";
import { useAtomValue } from "jotai";
import { useLingui } from "@lingui/react/macro";
import { cachedLogoAvailable } from "../api/cached.ts";
import { logoUrl } from "../api/public.ts";
import { darkAtom } from "../state/appearance.ts";
import { BrandMark } from "./BrandMark.tsx";

/** `compact` hides the product name on small screens (the mark stays). */
export function Logo({ compact = false }: { compact?: boolean }) {
  const { t } = useLingui();
  const dark = useAtomValue(darkAtom);
  const mode = dark ? "dark" : "light";
  const [available, setAvailable] = useState<{ mode: string; ok: boolean } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void cachedLogoAvailable(mode).then((ok) => {
      if (live) setAvailable({ mode, ok });
    });
    return () => {
      live = false;
    };
  }, [mode]);
  if (available?.mode === mode && available.ok) {
    return (
      <img
        src={logoUrl(mode)}
        alt={t`Logo`}
        data-testid="custom-logo"
        data-mode={mode}
        className="h-8 max-w-40 object-contain"
      />
    );
  }
  return <BrandMark compact={compact} />;
}
