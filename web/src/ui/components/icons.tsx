/**
 * Small inline icons (20×20, currentColor). Decorative: each is aria-hidden; the control carrying
 * one has its own text or label.
 */
import type { ReactNode } from "react";

function Icon({ children, className = "size-5" }: { children: ReactNode; className?: string }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={`shrink-0 ${className}`}>
      {children}
    </svg>
  );
}

/** A sun (light mode). */
export function SunIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path d="M10 2a.75.75 0 0 1 .75.75v1.5a.75.75 0 0 1-1.5 0v-1.5A.75.75 0 0 1 10 2Zm0 13a.75.75 0 0 1 .75.75v1.5a.75.75 0 0 1-1.5 0v-1.5A.75.75 0 0 1 10 15Zm0-8a3 3 0 1 0 0 6 3 3 0 0 0 0-6Zm5.66-2.66a.75.75 0 0 1 0 1.06l-1.06 1.06a.75.75 0 1 1-1.06-1.06l1.06-1.06a.75.75 0 0 1 1.06 0ZM6.46 13.54a.75.75 0 0 1 0 1.06L5.4 15.66a.75.75 0 0 1-1.06-1.06l1.06-1.06a.75.75 0 0 1 1.06 0ZM18 10a.75.75 0 0 1-.75.75h-1.5a.75.75 0 0 1 0-1.5h1.5A.75.75 0 0 1 18 10ZM5 10a.75.75 0 0 1-.75.75h-1.5a.75.75 0 0 1 0-1.5h1.5A.75.75 0 0 1 5 10Zm10.66 5.66a.75.75 0 0 1-1.06 0l-1.06-1.06a.75.75 0 0 1 1.06-1.06l1.06 1.06a.75.75 0 0 1 0 1.06ZM6.46 6.46a.75.75 0 0 1-1.06 0L4.34 5.4A.75.75 0 0 1 5.4 4.34l1.06 1.06a.75.75 0 0 1 0 1.06Z" />
    </Icon>
  );
}

/** A moon (dark mode). */
export function MoonIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M7.46 2.3a.75.75 0 0 1 .17.82 6 6 0 0 0 7.25 8 .75.75 0 0 1 .93.93A7.5 7.5 0 1 1 6.64 2.13a.75.75 0 0 1 .82.17Z"
      />
    </Icon>
  );
}

/** A screen (follow the system). */
export function MonitorIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M2 4.25A2.25 2.25 0 0 1 4.25 2h11.5A2.25 2.25 0 0 1 18 4.25v8.5A2.25 2.25 0 0 1 15.75 15h-3.1l.4 1.5h.7a.75.75 0 0 1 0 1.5h-7.5a.75.75 0 0 1 0-1.5h.7l.4-1.5h-3.1A2.25 2.25 0 0 1 2 12.75v-8.5Zm2.25-.75a.75.75 0 0 0-.75.75v8.5c0 .41.34.75.75.75h11.5c.41 0 .75-.34.75-.75v-8.5a.75.75 0 0 0-.75-.75H4.25Z"
      />
    </Icon>
  );
}

/** Four tiles (card view). */
export function GridIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path d="M3 4.5A1.5 1.5 0 0 1 4.5 3h3A1.5 1.5 0 0 1 9 4.5v3A1.5 1.5 0 0 1 7.5 9h-3A1.5 1.5 0 0 1 3 7.5v-3Zm8 0A1.5 1.5 0 0 1 12.5 3h3A1.5 1.5 0 0 1 17 4.5v3A1.5 1.5 0 0 1 15.5 9h-3A1.5 1.5 0 0 1 11 7.5v-3Zm-8 8A1.5 1.5 0 0 1 4.5 11h3A1.5 1.5 0 0 1 9 12.5v3A1.5 1.5 0 0 1 7.5 17h-3A1.5 1.5 0 0 1 3 15.5v-3Zm8 0a1.5 1.5 0 0 1 1.5-1.5h3a1.5 1.5 0 0 1 1.5 1.5v3a1.5 1.5 0 0 1-1.5 1.5h-3a1.5 1.5 0 0 1-1.5-1.5v-3Z" />
    </Icon>
  );
}

/** Lines (list view). */
export function ListIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M2 4.75A.75.75 0 0 1 2.75 4h14.5a.75.75 0 0 1 0 1.5H2.75A.75.75 0 0 1 2 4.75Zm0 5A.75.75 0 0 1 2.75 9h14.5a.75.75 0 0 1 0 1.5H2.75A.75.75 0 0 1 2 9.75Zm0 5a.75.75 0 0 1 .75-.75h14.5a.75.75 0 0 1 0 1.5H2.75a.75.75 0 0 1-.75-.75Z"
      />
    </Icon>
  );
}

/** A star, filled or outlined (favourite). */
export function StarIcon({ filled, className }: { filled: boolean; className?: string }) {
  return (
    <svg
      viewBox="0 0 20 20"
      aria-hidden="true"
      className={`shrink-0 ${className ?? "size-5"}`}
      fill={filled ? "currentColor" : "none"}
      stroke="currentColor"
      strokeWidth={filled ? 0 : 1.5}
    >
      <path strokeLinejoin="round" d="M10 2.5l2.2 4.6 5 .7-3.6 3.5.9 5-4.5-2.4-4.5 2.4.9-5L2.8 7.8l5-.7L10 2.5Z" />
    </svg>
  );
}

/** A key (change password). */
export function KeyIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M8 7a5 5 0 1 1 3.61 4.8l-1.08 1.08a.75.75 0 0 1-.53.22H8.75v1.25a.75.75 0 0 1-.75.75H6.75v1.25a.75.75 0 0 1-.75.75h-3a.75.75 0 0 1-.75-.75v-2.5c0-.2.08-.39.22-.53l5.6-5.6A5 5 0 0 1 8 7Zm5-2a1 1 0 1 0 0 2 1 1 0 0 0 0-2Z"
      />
    </Icon>
  );
}

/** An arrow out of a box (logout). */
export function LogoutIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M3 4.25A2.25 2.25 0 0 1 5.25 2h5.5A2.25 2.25 0 0 1 13 4.25v2a.75.75 0 0 1-1.5 0v-2a.75.75 0 0 0-.75-.75h-5.5a.75.75 0 0 0-.75.75v11.5c0 .41.34.75.75.75h5.5c.41 0 .75-.34.75-.75v-2a.75.75 0 0 1 1.5 0v2A2.25 2.25 0 0 1 10.75 18h-5.5A2.25 2.25 0 0 1 3 15.75V4.25Zm11.22 2.47a.75.75 0 0 1 1.06 0l2.75 2.75a.75.75 0 0 1 0 1.06l-2.75 2.75a.75.75 0 1 1-1.06-1.06l1.47-1.47H8.75a.75.75 0 0 1 0-1.5h6.94l-1.47-1.47a.75.75 0 0 1 0-1.06Z"
      />
    </Icon>
  );
}

/** An eye, open or crossed out (show or hide the timer). */
export function EyeIcon({ open, className }: { open: boolean; className?: string }) {
  return (
    <Icon className={className}>
      {open ? (
        <path
          fillRule="evenodd"
          clipRule="evenodd"
          d="M10 4c4.2 0 7.2 3 8.3 5.6a1 1 0 0 1 0 .8C17.2 13 14.2 16 10 16s-7.2-3-8.3-5.6a1 1 0 0 1 0-.8C2.8 7 5.8 4 10 4Zm0 3a3 3 0 1 0 0 6 3 3 0 0 0 0-6Z"
        />
      ) : (
        <path
          fillRule="evenodd"
          clipRule="evenodd"
          d="M3.28 2.22a.75.75 0 0 0-1.06 1.06l14.5 14.5a.75.75 0 1 0 1.06-1.06l-1.9-1.9A9.5 9.5 0 0 0 18.3 10.4a1 1 0 0 0 0-.8C17.2 7 14.2 4 10 4a8.3 8.3 0 0 0-3.87.96L3.28 2.22ZM7.75 6.69l1.3 1.3a2 2 0 0 1 2.96 2.96l1.3 1.3a3.75 3.75 0 0 0-5.56-5.56ZM1.7 9.6c.5-1.2 1.4-2.5 2.6-3.5l2 2A3.75 3.75 0 0 0 11.9 13.7l1.6 1.6A8.2 8.2 0 0 1 10 16c-4.2 0-7.2-3-8.3-5.6a1 1 0 0 1 0-.8Z"
        />
      )}
    </Icon>
  );
}

/** A magnifier (search). */
export function SearchIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M9 3.5a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11ZM2 9a7 7 0 1 1 12.45 4.39l3.33 3.33a.75.75 0 1 1-1.06 1.06l-3.33-3.33A7 7 0 0 1 2 9Z"
      />
    </Icon>
  );
}

/** Two sheets (copy). */
export function CopyIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path d="M7 3.5A1.5 1.5 0 0 1 8.5 2h3.88a1.5 1.5 0 0 1 1.06.44l3.12 3.12a1.5 1.5 0 0 1 .44 1.06v6.88a1.5 1.5 0 0 1-1.5 1.5h-1v-3.38a3 3 0 0 0-.88-2.12L10.5 6.38A3 3 0 0 0 8.38 5.5H7v-2Z" />
      <path d="M4.5 7A1.5 1.5 0 0 0 3 8.5v8A1.5 1.5 0 0 0 4.5 18h7a1.5 1.5 0 0 0 1.5-1.5v-5.38a1.5 1.5 0 0 0-.44-1.06L9.44 7.44A1.5 1.5 0 0 0 8.38 7H4.5Z" />
    </Icon>
  );
}

/** A key-and-lock badge (single sign-on). */
export function ShieldIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path
        fillRule="evenodd"
        clipRule="evenodd"
        d="M9.66 1.58a.75.75 0 0 1 .68 0c2.03 1.04 4.2 1.67 6.43 1.9a.75.75 0 0 1 .67.72c.24 5.92-2.92 10.45-7.2 12.2a.75.75 0 0 1-.57 0C5.39 14.65 2.32 10.12 2.56 4.2a.75.75 0 0 1 .67-.72 18.6 18.6 0 0 0 6.43-1.9Zm3.56 6.14a.75.75 0 1 0-1.1-1.02L8.98 10.1 7.8 8.92a.75.75 0 0 0-1.06 1.06l1.75 1.75a.75.75 0 0 0 1.08-.02l3.65-3.99Z"
      />
    </Icon>
  );
}
