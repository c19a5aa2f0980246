/**
 * Where a character-level (SentencePiece-converted) piece can be cut without changing its BPE
 * result. Gemma's normalizer turns every space into "▁" and its pre-tokenizer then splits on
 * spaces, which no longer exist: a whole message is one piece, merged as one word (no cache
 * hit, a long heap merge). A merge joins two adjacent symbols into a vocabulary token holding
 * both, so between a character x and a following "▁" no merge ever happens when no token holds
 * x immediately before a "▁" that does not start it. Symbols either side of such a cut never
 * interact, the lowest-rank-first order restricted to each side is that side's own order, so
 * merging the parts separately (and caching them as words) gives exactly the whole piece's ids.
 */
import type { TokenList } from "./token-list.ts";
import { PackedTokenList } from "./token-list.ts";

export const META_SPACE = "\u2581";
const META_CODE = 0x2581;

/** UTF-16 units x (other than "▁") that some token holds right before an inner "▁": no cut after them. */
export function joinedBeforeMetaSpace(tokens: TokenList): Set<number> {
  const joined = new Set<number>();
  if (tokens instanceof PackedTokenList) {
    // One indexOf walk over the packed text with a moving token index: no token is sliced.
    const { text, offsets } = tokens;
    let id = 0;
    for (let q = text.indexOf(META_SPACE); q >= 0; q = text.indexOf(META_SPACE, q + 1)) {
      while (offsets[id + 1]! <= q) id++;
      if (q === offsets[id]) continue;
      const x = text.charCodeAt(q - 1);
      if (x !== META_CODE) joined.add(x);
    }
    return joined;
  }
  for (let id = 0; id < tokens.length; id++) {
    const t = tokens.get(id);
    if (t === undefined) continue;
    for (let q = t.indexOf(META_SPACE, 1); q >= 0; q = t.indexOf(META_SPACE, q + 1)) {
      const x = t.charCodeAt(q - 1);
      if (x !== META_CODE) joined.add(x);
    }
  }
  return joined;
}
