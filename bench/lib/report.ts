/**
 * The machine-readable end of every benchmark: one line `BENCH-FIGURES [...]` with its headline
 * figures against their targets (issue #13 item 6), which `bench/run-all.ts` (`npm run bench`)
 * gathers into one table. The human-readable tables above it stay as they are.
 */

/** The marker that starts the line. */
export const FIGURES_MARK = "BENCH-FIGURES";

/** One headline figure: what, its target, the measured result (with its unit), and whether it met it. */
export interface Figure {
  readonly figure: string;
  readonly target: string;
  readonly result: string;
  /** null when the run could not judge it (not measured here). */
  readonly met: boolean | null;
}

/** Prints the figures line. */
export function reportFigures(figures: readonly Figure[]): void {
  console.log(`${FIGURES_MARK} ${JSON.stringify(figures)}`);
}

/** Reads the figures line of a benchmark's output; null when it printed none. */
export function parseFigures(output: string): Figure[] | null {
  const line = output.split("\n").find((l) => l.startsWith(`${FIGURES_MARK} `));
  return line ? (JSON.parse(line.slice(FIGURES_MARK.length + 1)) as Figure[]) : null;
}

/** `value` milliseconds with its unit, for a result cell. */
export const msResult = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "-");
