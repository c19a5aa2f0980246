/**
 * Plain arrays of a known length that V8 stores packed and of the right elements kind from the
 * start. `new Array(n)` is holey: JSON.stringify then takes its per-element slow path (about
 * half the speed on a trace's token arrays), and a holey small-integer array that receives a
 * double is copied into a new backing store (a logprobs array was allocated twice). A slice of a
 * packed template of the same kind is one exact allocation, copied at memcpy speed.
 *
 * Callers may write into what they get (kinds stay packed: a store of another kind generalises
 * in place, except small integers to doubles, which is why `doubles` exists).
 */

/** Above this the templates would pin too much memory; such arrays are built holey instead. */
const MAX_TEMPLATE = 1 << 16;

class Template<T> {
  private items: T[];

  constructor(
    private readonly value: T,
    seed: T[],
  ) {
    // The seed fixes the elements kind (a literal of doubles stays a double array).
    this.items = seed;
    this.items.length = 0;
  }

  take(n: number): T[] {
    if (n > MAX_TEMPLATE) {
      const out = new Array<T>(n);
      for (let i = 0; i < n; i++) out[i] = this.value;
      return out;
    }
    const items = this.items;
    if (items.length < n) {
      const target = Math.min(MAX_TEMPLATE, Math.max(n, items.length * 2, 256));
      while (items.length < target) items.push(this.value);
    }
    return items.slice(0, n);
  }
}

const ZEROS = new Template<number>(0, [0]);
// Seeded with a non-integer so the template's backing store holds raw doubles.
const DOUBLE_ZEROS = new Template<number>(0, [0.5]);
const FALSES = new Template<boolean>(false, [false]);
const NULLS = new Template<null>(null, [null]);

/** `n` zeros as small integers (token ids are written over them). */
export function zeros(n: number): number[] {
  return ZEROS.take(n);
}

/** `n` zeros stored as doubles: for logprobs, so writing fractions needs no second array. */
export function doubleZeros(n: number): number[] {
  return DOUBLE_ZEROS.take(n);
}

export function falses(n: number): boolean[] {
  return FALSES.take(n);
}

export function nulls(n: number): null[] {
  return NULLS.take(n);
}
