/**
 * Request ids, and which of them are live, per session.
 *
 * SGLang aborts in two layers: its TokenizerManager (with one tokenizer worker, the default)
 * forwards `/abort_request` only for a live rid it knows exactly, and the scheduler then stops
 * every live request whose rid *starts with* it. So a rollout is aborted by sending each of its
 * live rids, and rids must be prefix-free, or aborting `s:1` would also stop a live `s:10`.
 *
 * `${sessionId}:${turn}:${nonce}` — the session and turn for people reading logs, then a
 * fixed-length hex nonce after the last `:`: two rids of one session can only be prefixes of
 * each other if they are equal, and concurrent calls of one turn (a program calling in
 * parallel, a retry while the timed-out attempt is torn down) never share a rid, which SGLang
 * would refuse as a duplicate.
 */
import { randomHex } from "../random.ts";

export function newRid(sessionId: string, turn: number): string {
  return `${sessionId}:${turn}:${randomHex(4)}`;
}

export class LiveRids {
  /** A session's one live rid as a string (the usual case), a Set when it has several. */
  private readonly bySession = new Map<string, string | Set<string>>();

  add(sessionId: string, rid: string): void {
    const live = this.bySession.get(sessionId);
    if (live === undefined) this.bySession.set(sessionId, rid);
    else if (typeof live === "string") {
      if (live !== rid) this.bySession.set(sessionId, new Set([live, rid]));
    } else live.add(rid);
  }

  delete(sessionId: string, rid: string): void {
    const live = this.bySession.get(sessionId);
    if (live === undefined) return;
    if (typeof live === "string") {
      if (live === rid) this.bySession.delete(sessionId);
      return;
    }
    live.delete(rid);
    if (live.size === 0) this.bySession.delete(sessionId);
  }

  of(sessionId: string): string[] {
    const live = this.bySession.get(sessionId);
    if (live === undefined) return [];
    return typeof live === "string" ? [live] : [...live];
  }

  all(): string[] {
    const out: string[] = [];
    for (const live of this.bySession.values()) {
      if (typeof live === "string") out.push(live);
      else out.push(...live);
    }
    return out;
  }
}
