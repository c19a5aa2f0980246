/**
 * Which message each character of a chat template's output came from, in ONE render.
 *
 * While the template runs, every iteration of a `for` loop whose loop variable is one of the
 * caller's messages (found by identity, so `messages[1:]`, `messages[::-1]` and `loop_messages`
 * count) prefixes its output with an invisible marker naming the message, and the loop's output
 * is followed by an end marker. Stripping the markers gives exactly the template's text; their
 * positions give each message's span. This replaces rendering every prefix and diffing (which
 * is quadratic in the number of messages). Text before the first marked message belongs to message
 * 0 when that message has no iteration output of its own (a system prompt the template writes
 * up front, Gemma's `<bos>`), else it is scaffold; text after the loop is the generation prompt.
 * A template the markers cannot describe — a message marked twice (two loops writing it),
 * markers out of order, no message loop at all, or input that already holds the marker
 * characters — is reported as irregular and the caller falls back to prefix diffs.
 */
import type { Template } from "@huggingface/jinja";
import { fingerprintValue, type Interp, LoopMemo, type LoopRecords } from "./loop-memo.ts";
import type { Node } from "./loop-shape.ts";
import { type RenderTracker, withRenderTracker } from "./python-semantics.ts";

/**
 * C1 control characters that no template writes and no text decoding produces (the bytes
 * Windows-1252 leaves undefined, so not even mojibake holds them); input or a template holding
 * one is rejected up front. They are Latin-1, so an ASCII or Latin-1 render stays a one-byte
 * string (half the bytes to copy, compare and tokenize as with characters above U+00FF).
 */
export const MARK = "\u0081";
export const MARK_END = "\u008D";
export const LOOP_END = "\u008F";
export const MARKER_CHARS = /[\u0081\u008D\u008F]/;

/** Whether any string or key in a JSON-like value holds a marker (what its JSON would hold). */
export function holdsMarker(x: unknown, depth = 0): boolean {
  if (typeof x === "string") return MARKER_CHARS.test(x);
  if (x === null || typeof x !== "object" || depth > 64) return false;
  if (Array.isArray(x)) {
    for (const v of x) if (holdsMarker(v, depth + 1)) return true;
    return false;
  }
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    if (MARKER_CHARS.test(k) || holdsMarker((x as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}

export interface MarkedText {
  text: string;
  /** Start offset of each message's output, or -1 when it produced none. */
  starts: number[];
  /** End of the message loop's output (where the generation prompt starts). */
  loopEnd: number;
  /** This render's loop records, when it ran with a memo (for the next render). */
  loops?: LoopRecords;
  /** Loop iterations replayed from the previous records / interpreted. */
  replayed?: number;
  evaluated?: number;
  /** The template's output with the markers, and each message's marker offset in it (-1: none). */
  raw?: string;
  rawStarts?: number[];
  /** Offset in `raw` of its first loop-end marker (raw.length when none). */
  rawFirstLoopEnd?: number;
  /** Length of the prefix of `text` read from `previousMarked` (found equal), 0 when none. */
  reused?: number;
}

/** Incremental evaluation for one marked render (see `loop-memo.ts`). */
export interface MemoOptions {
  /** The records of an earlier render of (a prefix of) this conversation, or null. */
  previous: LoopRecords | null;
  /** Names the template assigns or defines (`definedNames`). */
  defined: ReadonlySet<string>;
  /** The caller's messages as given to the template (`message-values.ts`). */
  messages: readonly { value: unknown; fingerprint?: string | null }[];
  /** Index among `messages` of a value that is one of them, else -1. */
  indexOf(v: unknown): number;
  /** The previous render's marked text: its markers are not read again where the output agrees. */
  previousMarked: MarkedText | null;
}

interface ForNode {
  body: unknown;
  loopvar: { type: string; value?: unknown };
}

type Scope = { lookupVariable(name: string): unknown };

class MessageTracker implements RenderTracker {
  private ids: { get(v: unknown): number | undefined } | null = null;
  private readonly bodies = new Map<unknown, string>();
  private readonly marked: boolean[] = [];
  readonly memo: LoopMemo | null;

  constructor(memo: MemoOptions | null) {
    if (!memo) {
      this.memo = null;
      return;
    }
    const values = memo.messages;
    this.ids = { get: (v) => (v !== null && typeof v === "object" ? memo.indexOf(v) : -1) };
    this.memo = new LoopMemo(
      memo.previous,
      {
        messageIndex: (v) => memo.indexOf(v),
        messageFingerprint: (k) => {
          const m = values[k]!;
          if (m.fingerprint === undefined) m.fingerprint = fingerprintValue(m.value as never);
          return m.fingerprint;
        },
        isMarked: () => this.marked[this.marked.length - 1] === true,
        setMarked: () => {
          this.marked[this.marked.length - 1] = true;
        },
      },
      memo.defined,
    );
  }

  evaluateFor(interp: unknown, node: unknown, env: unknown, fallback: () => never): never {
    if (!this.memo) return fallback();
    return this.memo.evaluateFor(interp as Interp, node as Node, env as never, fallback) as never;
  }

  onRun(global: unknown): void {
    if (this.ids) return;
    const msgs = (global as Scope).lookupVariable("messages") as { value?: unknown };
    this.ids = new Map(Array.isArray(msgs?.value) ? msgs.value.map((v, i) => [v, i]) : []);
  }

  onFor(node: unknown, phase: "start" | "end", output?: string): string | undefined {
    const n = node as ForNode;
    if (phase === "start") {
      if (n.loopvar?.type === "Identifier" && typeof n.loopvar.value === "string")
        this.bodies.set(n.body, n.loopvar.value);
      this.marked.push(false);
      return undefined;
    }
    const marked = this.marked.pop();
    return marked ? output + LOOP_END : undefined;
  }

  onBlock(statements: unknown, scope: unknown, output: string): string {
    const name = this.bodies.get(statements);
    if (name === undefined || output.length === 0 || !this.ids) return output;
    const k = this.ids.get((scope as Scope).lookupVariable(name));
    if (k === undefined || k < 0) return output;
    this.marked[this.marked.length - 1] = true;
    return `${MARK}${k.toString(36)}${MARK_END}${output}`;
  }
}

/** The template's text with message spans, or null when the template is irregular (see above). */
export function renderMarked(
  template: Template,
  ctx: Record<string, unknown>,
  messageCount: number,
  memo: MemoOptions | null = null,
): MarkedText | null {
  const tracker = new MessageTracker(memo);
  const raw = withRenderTracker(tracker, () => template.render(ctx));
  return readMarks(raw, messageCount, memo?.previousMarked ?? null, tracker.memo);
}

/**
 * Message spans from a marked output (the library's under the tracker, or the compiled
 * evaluator's, which marks the same places); `previousMarked` and `loopMemo` are those of an
 * incremental render.
 */
export function readMarks(
  raw: string,
  messageCount: number,
  previousMarked: MarkedText | null = null,
  loopMemo: LoopMemo | null = null,
): MarkedText | null {
  const starts = new Array<number>(messageCount).fill(-1);
  const rawStarts = new Array<number>(messageCount).fill(-1);
  // Pieces joined once: one flat string (the bridge compares and slices it) in one copy.
  const pieces: string[] = [];
  let length = 0;
  let pos = 0;
  let prevIndex = -1;
  let loopEnd = -1;
  let sawMessage = false;
  const resume = previousMarked ? resumePoint(previousMarked, raw, messageCount) : null;
  if (resume) {
    const p = previousMarked!;
    const k = resume.message;
    pieces.push(p.text.slice(0, p.starts[k]));
    length = p.starts[k]!;
    for (let j = 0; j < k; j++) {
      starts[j] = p.starts[j]!;
      rawStarts[j] = p.rawStarts![j]!;
      if (starts[j]! >= 0) {
        prevIndex = j;
        sawMessage = true;
      }
    }
    pos = resume.raw;
  }
  let firstLoopEnd = raw.length;
  let chunkAt = 0;
  const onEnd = (at: number, inChunk: number) => {
    loopEnd = at;
    if (firstLoopEnd === raw.length) firstLoopEnd = chunkAt + inChunk;
  };
  while (pos < raw.length) {
    const i = raw.indexOf(MARK, pos);
    chunkAt = pos;
    const piece = stripLoopEnds(raw.slice(pos, i < 0 ? raw.length : i), length, onEnd);
    pieces.push(piece);
    length += piece.length;
    if (i < 0) break;
    const close = raw.indexOf(MARK_END, i);
    const k = Number.parseInt(raw.slice(i + 1, close), 36);
    if (!(k > prevIndex) || starts[k] !== -1) return null;
    starts[k] = length;
    rawStarts[k] = i;
    prevIndex = k;
    sawMessage = true;
    pos = close + 1;
  }
  if (!sawMessage || loopEnd < 0) return null;
  const lastStart = Math.max(...starts);
  if (loopEnd < lastStart) return null;
  const text = pieces.join("");
  if (!loopMemo) return { text, starts, loopEnd };
  const { recorded, replayed, evaluated } = loopMemo;
  const reused = resume ? previousMarked!.starts[resume.message]! : 0;
  return {
    text,
    starts,
    loopEnd,
    loops: recorded,
    replayed,
    evaluated,
    raw,
    rawStarts,
    rawFirstLoopEnd: firstLoopEnd,
    reused,
  };
}

/**
 * Where reading `raw`'s markers may start from the previous render's result: the marker of the
 * previous render's last message, when everything before it is the same output (one compare)
 * and holds no loop end. Reading that prefix again would give exactly the previous text and
 * starts up to there.
 */
function resumePoint(
  p: MarkedText,
  raw: string,
  messageCount: number,
): { message: number; raw: number } | null {
  if (!p.raw || !p.rawStarts || p.rawFirstLoopEnd === undefined) return null;
  let k = Math.min(p.rawStarts.length, messageCount) - 1;
  while (k >= 0 && p.rawStarts[k]! < 0) k--;
  if (k < 0) return null;
  const at = p.rawStarts[k]!;
  if (at > raw.length || p.rawFirstLoopEnd < at) return null;
  return raw.slice(0, at) === p.raw.slice(0, at) ? { message: k, raw: at } : null;
}

/** Removes loop-end markers from a chunk, reporting each one's position in the output and chunk. */
function stripLoopEnds(chunk: string, base: number, onEnd: (at: number, inChunk: number) => void): string {
  let at = chunk.indexOf(LOOP_END);
  if (at < 0) return chunk;
  let out = "";
  let from = 0;
  while (at >= 0) {
    out += chunk.slice(from, at);
    onEnd(base + out.length, at);
    from = at + 1;
    at = chunk.indexOf(LOOP_END, from);
  }
  return out + chunk.slice(from);
}

/** Owner of every character: message spans from the markers, preamble and tail as described. */
export function ownersFromMarks(marked: MarkedText): Int32Array {
  const { text, starts, loopEnd } = marked;
  const owner = new Int32Array(text.length).fill(-1);
  const order = starts.map((s, k) => [s, k] as const).filter(([s]) => s >= 0);
  const firstStart = order.length ? order[0]![0] : loopEnd;
  if (starts.length > 0 && starts[0] === -1) owner.fill(0, 0, firstStart);
  for (let j = 0; j < order.length; j++) {
    const [s, k] = order[j]!;
    const e = j + 1 < order.length ? order[j + 1]![0] : loopEnd;
    owner.fill(k, s, e);
  }
  return owner;
}
