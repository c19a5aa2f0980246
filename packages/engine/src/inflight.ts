/**
 * Requests currently generating, so `/abort_request` can stop them. The two layers of SGLang's
 * abort are kept: its TokenizerManager (with one tokenizer worker, the default) forwards an
 * abort only for a live rid it knows — a prefix that names no live request is dropped — and the
 * scheduler then stops every live request whose rid starts with it.
 */

export interface InFlight {
  readonly rid: string;
  aborted: boolean;
  abortMessage: string;
  /** Wakes the request's pending timer so it notices the abort at once. */
  wake: () => void;
}

export class InFlightTable {
  private readonly entries = new Set<InFlight>();
  /** Live rids (unique: a duplicate live rid is refused before it gets here). */
  private readonly byRid = new Map<string, InFlight>();

  add(rid: string): InFlight {
    const entry: InFlight = { rid, aborted: false, abortMessage: "", wake: () => {} };
    this.entries.add(entry);
    this.byRid.set(rid, entry);
    return entry;
  }

  delete(entry: InFlight): void {
    this.entries.delete(entry);
    if (this.byRid.get(entry.rid) === entry) this.byRid.delete(entry.rid);
  }

  /** True while a request with exactly this rid is generating. */
  has(rid: string): boolean {
    return this.byRid.has(rid);
  }

  /**
   * Aborts `rid` if it is live (and every live rid it is a prefix of), or everything with `all`;
   * an empty or unknown rid aborts nothing. Returns the count.
   */
  abort(rid: string, all: boolean, message: string): number {
    if (!all && (rid === "" || !this.has(rid))) return 0;
    let n = 0;
    for (const e of this.entries) {
      if (e.aborted || !(all || e.rid.startsWith(rid))) continue;
      e.aborted = true;
      e.abortMessage = message;
      e.wake();
      n++;
    }
    return n;
  }

  wakeAll(): void {
    for (const e of this.entries) e.wake();
  }

  get size(): number {
    return this.entries.size;
  }
}
