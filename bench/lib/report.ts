/**
 * The figure format every benchmark returns: `{"name", "value", "unit", ...}`, one JSON object
 * per line on stdout, so runs can be diffed and compared by name. Medians, not means, because
 * this machine is small and noisy and a single GC pause or scheduler hiccup skews a mean.
 */

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The target from the issue, in words (e.g. ">= 0.5"), when there is one. */
  target?: string;
  /** Whether the target was met (absent when there is no target). */
  met?: boolean;
  /** Every repetition's value, in run order. */
  reps?: number[];
  [extra: string]: unknown;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Rounds to 4 significant digits so the JSON stays readable without losing the comparison. */
export function round(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const digits = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(digits, 6)));
}

export function printFigure(f: Figure): void {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    out[k] =
      typeof v === "number"
        ? round(v)
        : Array.isArray(v)
          ? v.map((x) => (typeof x === "number" ? round(x) : x))
          : v;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** Progress notes go to stderr so stdout stays one JSON object per line. */
export function note(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

/** How big each benchmark runs: `--quick` is the ~1-minute smoke version of the full suite. */
export interface BenchOptions {
  quick: boolean;
  /** Repetitions per figure (the figure is their median). */
  reps: number;
}
