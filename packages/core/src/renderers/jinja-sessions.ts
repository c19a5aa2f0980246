/**
 * What the generic renderer remembers of the prompts it produced, for the next turn's bridge:
 * the prompt's ids, its text, and the loop records of the render (`jinja-loop-memo.ts`). The
 * bridge finds the entry by the previous prompt's ids, so an entry is only ever used for the
 * prompt it was made for (checked id by id: a lookup key collision or a caller's changed ids
 * finds nothing). Nothing here is trusted for correctness beyond "this text made these ids":
 * loop records are replayed only where their fingerprints match the new render.
 */
import type { TokenIds } from "../token-sequence.ts";
import type { LoopRecords } from "./jinja-loop-memo.ts";
import type { MessageValue } from "./jinja-message-values.ts";

/** What the marked render of a prompt left for the next one (`JinjaRenderer.renderMarkedText`). */
export interface RenderState {
  loops: LoopRecords;
  values: readonly MessageValue[];
}

export interface PromptRecord {
  ids: TokenIds;
  text: string;
  state: RenderState | null;
}

/** How many prompts a renderer remembers (one per live conversation is what a bridge needs). */
const MAX_PROMPTS = 1024;
/** Ids at the end of a prompt that the lookup key holds (the rest is checked on a hit). */
const KEY_TAIL = 8;

/** Id `i` of a prompt (a TokenSequence or a plain array). */
function idAt(ids: TokenIds, i: number): number | undefined {
  return Array.isArray(ids) ? (ids as readonly number[])[i] : (ids as { at(i: number): number | undefined }).at(i);
}

function keyOf(ids: TokenIds): string {
  let key = `${ids.length}`;
  for (let i = Math.max(0, ids.length - KEY_TAIL); i < ids.length; i++) key += `,${idAt(ids, i)}`;
  return key;
}

export class PromptRecords {
  private readonly entries = new Map<string, PromptRecord>();

  /**
   * Remembers a prompt. The ids are kept by reference, not copied: they are the renderer's own
   * result, which the caller passes back unchanged as the next turn's previous prompt.
   */
  remember(ids: TokenIds, text: string, state: RenderState | null): void {
    const key = keyOf(ids);
    this.entries.delete(key);
    if (this.entries.size >= MAX_PROMPTS) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { ids, text, state });
  }

  /** The record of the prompt whose ids are exactly `ids`, or null. */
  find(ids: TokenIds): PromptRecord | null {
    const hit = this.entries.get(keyOf(ids));
    if (!hit || hit.ids.length !== ids.length) return null;
    if (hit.ids === ids) return hit;
    for (let i = 0; i < ids.length; i++) if (idAt(hit.ids, i) !== idAt(ids, i)) return null;
    return hit;
  }

  get size(): number {
    return this.entries.size;
  }
}
