/**
 * Views over a render's attribution, for trainers: token counts and [start, end) spans per
 * message and per role (the Python `RenderedTokens` helpers, same results). Typical uses:
 * length penalties over sampled assistant tokens only, per-turn logprob slices, and loss masks
 * over tool-response bodies. For a bridge result, indices are relative to its new messages and
 * the prior portion (index -1) counts for nothing.
 */
import type { RenderedTokens } from "../renderer.ts";

export type Span = [number, number];

/** Tokens attributed to each message (scaffold outside messages not counted). */
export function tokensPerMessage(r: RenderedTokens, opts: { sampledOnly?: boolean } = {}): number[] {
  const out = new Array<number>(r.messageRoles.length).fill(0);
  r.messageIndices.forEach((idx, k) => {
    if (idx >= 0 && idx < out.length && (!opts.sampledOnly || r.sampledMask[k])) out[idx]!++;
  });
  return out;
}

/** Outer [first, last+1) token span of each message, or null when it produced no tokens. */
export function messageTokenSpans(r: RenderedTokens): (Span | null)[] {
  const out: (Span | null)[] = new Array(r.messageRoles.length).fill(null);
  r.messageIndices.forEach((idx, k) => {
    if (idx < 0 || idx >= out.length) return;
    const span = out[idx]!;
    if (span === null) out[idx] = [k, k + 1];
    else span[1] = k + 1;
  });
  return out;
}

function byRole<T>(r: RenderedTokens, perMessage: (i: number) => T[]): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  r.messageRoles.forEach((role, i) => {
    out[role] ??= [];
    out[role].push(...perMessage(i));
  });
  return out;
}

/** Message spans grouped by role, in message order (every role present gets a key). */
export function roleTokenSpans(r: RenderedTokens): Record<string, Span[]> {
  const spans = messageTokenSpans(r);
  return byRole(r, (i) => (spans[i] ? [spans[i] as Span] : []));
}

/** Token counts summed per role. */
export function tokensByRole(
  r: RenderedTokens,
  opts: { sampledOnly?: boolean } = {},
): Record<string, number> {
  const counts = tokensPerMessage(r, opts);
  const out: Record<string, number> = {};
  r.messageRoles.forEach((role, i) => {
    out[role] = (out[role] ?? 0) + counts[i]!;
  });
  return out;
}

/** Runs of body tokens (`isContent`) inside each message's span, grouped by role. */
export function contentTokenSpansByRole(r: RenderedTokens): Record<string, Span[]> {
  const spans = messageTokenSpans(r);
  return byRole(r, (i) => {
    const span = spans[i];
    if (!span) return [];
    const runs: Span[] = [];
    let start = -1;
    for (let k = span[0]; k < span[1]; k++) {
      if (r.isContent[k] && start < 0) start = k;
      else if (!r.isContent[k] && start >= 0) {
        runs.push([start, k]);
        start = -1;
      }
    }
    if (start >= 0) runs.push([start, span[1]]);
    return runs;
  });
}
