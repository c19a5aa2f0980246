/**
 * Requests a program's SDK sends again after giving up on them client-side (a timeout, a dropped
 * connection). The turn was already sampled — or is still being sampled — and recorded; sampling
 * it again would put a second, sibling completion in the trace that the program never used.
 *
 * Only a completion whose requester left before it was delivered is offered to an identical
 * later request, and only once. A request repeated after its answer arrived is a real new
 * request (agents re-ask when they cannot use a reply; parallel identical requests are
 * best-of-n), so it samples again.
 */
import type { Sampling } from "../clients/client.ts";
import { canonicalJson, messageHash } from "../trace/hash.ts";
import type { Message, Tool } from "../types.ts";

/**
 * Identity of a program request: what it asked for, as it sent it. `toolsJson`: the tools'
 * canonical JSON when the caller keeps it (see ListJson).
 */
export function requestKey(
  messages: readonly Message[],
  tools: readonly Tool[],
  sampling: Sampling,
  toolsJson = canonicalJson(tools),
): string {
  return `[${canonicalJson(messages.map(messageHash))},${toolsJson},${canonicalJson(sampling)}]`;
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Resends<T> {
  /** Results whose requester left undelivered, by request key, oldest first. */
  private readonly orphaned = new Map<string, Promise<T>[]>();
  /** Identical requests still waiting for their result, by key. */
  private readonly pending = new Map<string, number>();

  /**
   * Watches one request's result; if `gone` fires (the requester left before the answer was
   * delivered), the result — pending or settled — becomes claimable by an identical request.
   */
  track(key: string, result: Promise<T>, gone: AbortSignal): void {
    const orphan = () => {
      const list = this.orphaned.get(key);
      if (list) list.push(result);
      else this.orphaned.set(key, [result]);
    };
    if (gone.aborted) orphan();
    else gone.addEventListener("abort", orphan, { once: true });
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    const settled = () => {
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left > 0) this.pending.set(key, left);
      else this.pending.delete(key);
    };
    result.then(settled, settled);
  }

  /**
   * The oldest orphaned result for `key`, handed out once (awaited); null when there is none or
   * it failed — a failed turn is no answer, so the re-send then samples like a first request.
   */
  async claim(key: string): Promise<T | null> {
    // An SDK can re-send within a millisecond of dropping the first connection, before this
    // process has run that socket's close event: give it a turn when an identical request is
    // still in flight (only then can there be a close in the queue that concerns us).
    for (let turn = 0; turn < 2 && !this.orphaned.has(key) && this.pending.has(key); turn++)
      await nextMacrotask();
    const list = this.orphaned.get(key);
    const first = list?.shift();
    if (list && list.length === 0) this.orphaned.delete(key);
    return first ? first.catch(() => null) : null;
  }
}
