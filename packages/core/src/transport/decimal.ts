/**
 * The double nearest a decimal of up to 18 significant digits without an exponent, from its
 * digits, without a string: JSON logprobs are shortest round-trip decimals, mostly 16–17 digits,
 * past the 2^53 that Clinger's fast path (an exact integer over an exact power of ten) needs.
 *
 * The digits are m = a·10^j + b (a: the first 9 significant digits, b: the j ≤ 9 after them)
 * and the value m / 10^f. a·10^j = a·5^j·2^j is an exact double (a·5^j < 10^9·5^9 < 2^53), so m
 * is the exact sum hi + lo of two doubles; x = hi / 10^f is within two ulps of the quotient,
 * and the residual m − x·10^f, computed exactly (Dekker's product, Sterbenz's subtraction), says
 * how far the quotient lies from x in ulps. The answer is x or a neighbour when the quotient is
 * clearly inside that double's rounding interval; near a boundary (a possible tie) it is NaN and
 * the caller converts the text instead.
 */

/** 10^0 … 10^22, each exact (read as text, so never a rounded Math.pow). */
export const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/** 2^(e − 1075): one ulp of a double whose biased exponent is e. */
const POW2 = Float64Array.from({ length: 2048 }, (_, e) => 2 ** (e - 1075));
const SPLIT = 134217729; // 2^27 + 1
const MARGIN = 1e-6;
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const HIGH = new Uint32Array(new Float64Array([1]).buffer)[1] === 0x3ff00000 ? 1 : 0;
const LOW = 1 - HIGH;

/** (a·10^j + b) / 10^f correctly rounded, for 10^8 ≤ a < 10^9, 0 ≤ b < 10^j, j ≤ 9, f ≤ 22; else NaN. */
export function quotient(a: number, b: number, j: number, f: number): number {
  const A = a * POW10[j]!;
  const hi = A + b;
  const lo = b - (hi - A);
  const d = POW10[f]!;
  const x = hi / d;
  // x·d = p + e exactly (no fused multiply-add in JS: Veltkamp splits).
  const p = x * d;
  let c = SPLIT * x;
  const xh = c - (c - x);
  const xl = x - xh;
  c = SPLIT * d;
  const dh = c - (c - d);
  const dl = d - dh;
  const e = xh * dh - p + xh * dl + xl * dh + xl * dl;
  // hi − p is exact (they are within a factor of 2); r = m − x·d up to one rounding of the last step.
  const r = hi - p + lo - e;
  bits[0] = x;
  const exponent = (words[HIGH]! >>> 20) & 0x7ff;
  if (exponent === 0 || exponent === 0x7ff) return Number.NaN;
  const unit = POW2[exponent]!;
  const ulp = unit * d;
  const k = r / ulp;
  if (k > -0.5 + MARGIN && k < 0.5 - MARGIN) {
    // Just above a power of two the rounding interval below is half as wide.
    if (k < 0 && isPowerOfTwo() && k < -0.25 + MARGIN) return Number.NaN;
    return x;
  }
  if (k > 0.5 + MARGIN && k < 1.5 - MARGIN) return x + unit;
  if (k < -0.5 - MARGIN && k > -1.5 + MARGIN && !isPowerOfTwo()) return x - unit;
  return Number.NaN;
}

/** Whether `bits[0]` has an all-zero mantissa. */
function isPowerOfTwo(): boolean {
  return (words[HIGH]! & 0xfffff) === 0 && words[LOW] === 0;
}
