/**
 * Seeded fault injection for reliability tests: each /generate request draws, in arrival order,
 * whether it fails and how. The same seed and request order give the same faults.
 */
import { mulberry32, type Rng } from "envroll/internal/random.ts";
import type { FaultKind, FaultOptions } from "./types.ts";

export const FAULT_KINDS: readonly FaultKind[] = ["5xx", "429", "408", "reset", "stall", "abort"];

export function emptyFaultCounts(): Record<FaultKind, number> {
  return { "5xx": 0, "429": 0, "408": 0, reset: 0, stall: 0, abort: 0 };
}

export class FaultInjector {
  readonly counts = emptyFaultCounts();
  private readonly rng: Rng;

  constructor(private readonly opts: FaultOptions) {
    for (const k of opts.kinds) {
      if (!FAULT_KINDS.includes(k))
        throw new Error(`unknown fault kind ${JSON.stringify(k)} (${FAULT_KINDS.join(", ")})`);
    }
    if (!(opts.rate >= 0 && opts.rate <= 1))
      throw new Error(`fault rate must be in [0, 1], got ${opts.rate}`);
    this.rng = mulberry32((opts.seed ?? 0) ^ 0x5eed);
  }

  /** The fault for the next request, or null. */
  draw(): FaultKind | null {
    if (this.opts.rate === 0 || this.opts.kinds.length === 0) return null;
    const roll = this.rng();
    const pick = this.rng();
    if (roll >= this.opts.rate) return null;
    const kind = this.opts.kinds[Math.floor(pick * this.opts.kinds.length)]!;
    this.counts[kind]++;
    return kind;
  }
}

/** Parses `--faults 5xx,429,reset` into kinds. */
export function parseFaultKinds(list: string): FaultKind[] {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean) as FaultKind[];
}
