/** Checked numeric command-line values the benchmarks share. */

/**
 * `text` as an integer in `min`–`max` (option `--name`).
 * @throws Error naming the option, the range and the value given otherwise.
 */
export function intOption(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer in ${min}–${max}, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * `text` as a number in `min`–`max` (option `--name`), fractions allowed.
 * @throws Error naming the option, the range and the value given otherwise.
 */
export function numberOption(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!(n >= min && n <= max))
    throw new Error(`--${name} must be a number in ${min}–${max}, got ${JSON.stringify(text)}`);
  return n;
}
