/**
 * What the generic renderer remembers of the prompts it produced, for the next turn's bridge:
 * the prompt's ids, its text, and what its render leaves for the next (`RenderState`). The
 * bridge finds the entry by the previous prompt's ids (the same array, or an equal copy), so an
 * entry is only ever used for the prompt it was made for. Nothing here is trusted for
 * correctness beyond "this text made these ids": loop records are replayed only where their
 * fingerprints match the new render, message values only where they equal the messages.
 */

import type { TokenIds } from "../../token-sequence.ts";
import type { MarkedText } from "./attribution.ts";
import type { LoopRecords } from "./loop-memo.ts";
import type { MessageValue } from "./message-values.ts";

/** What the marked render of a prompt left for the next one (`JinjaRenderer.renderMarkedText`). */
export interface RenderState {
  loops: LoopRecords;
  values: readonly MessageValue[];
  marked: MarkedText;
}

export interface PromptRecord {
  ids: TokenIds;
  text: string;
  state: RenderState | null;
}

/** How many prompts a renderer remembers at most (the oldest are forgotten first). */
const MAX_PROMPTS = 1024;
/** Ids at the end of a prompt that the content key holds (the rest is compared on a hit). */
const KEY_TAIL = 8;

/** Id `i` of a prompt (a TokenSequence or a plain array). */
function idAt(ids: TokenIds, i: number): number | undefined {
  return Array.isArray(ids)
    ? (ids as readonly number[])[i]
    : (ids as { at(i: number): number | undefined }).at(i);
}

function keyOf(ids: TokenIds): string {
  let key = `${ids.length}`;
  for (let i = Math.max(0, ids.length - KEY_TAIL); i < ids.length; i++) key += `,${idAt(ids, i)}`;
  return key;
}

/**
 * Records are held by a WeakMap keyed by their ids array (the renderer's own result, which the
 * caller passes back as the next turn's previous prompt), so a finished conversation's records
 * go with its ids, and at most the newest MAX_PROMPTS are kept while their ids live. A caller
 * that passes an equal copy finds the record by a content key, compared id by id.
 */
export class PromptRecords {
  private readonly byIds = new WeakMap<TokenIds, PromptRecord>();
  private readonly byContent = new Map<string, WeakRef<TokenIds>>();
  /** Remembered ids (with their content key), oldest first. */
  private readonly order = new Map<WeakRef<TokenIds>, string>();

  remember(ids: TokenIds, text: string, state: RenderState | null): void {
    const ref = new WeakRef(ids);
    const key = keyOf(ids);
    this.byIds.set(ids, { ids, text, state });
    this.byContent.set(key, ref);
    this.order.set(ref, key);
    for (const [oldest, oldKey] of this.order) {
      if (this.order.size <= MAX_PROMPTS) break;
      this.order.delete(oldest);
      const gone = oldest.deref();
      if (gone) this.byIds.delete(gone);
      if (this.byContent.get(oldKey) === oldest) this.byContent.delete(oldKey);
    }
  }

  /** The record of the prompt whose ids are exactly `ids`, or null. */
  find(ids: TokenIds): PromptRecord | null {
    const own = this.byIds.get(ids);
    if (own) return own;
    const kept = this.byContent.get(keyOf(ids))?.deref();
    if (!kept || kept.length !== ids.length) return null;
    for (let i = 0; i < ids.length; i++) if (idAt(kept, i) !== idAt(ids, i)) return null;
    return this.byIds.get(kept) ?? null;
  }
}
