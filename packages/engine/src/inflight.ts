/**
 * Requests currently generating, so `/abort_request` can stop them by rid prefix (the scheduler
 * matches prefixes, which is what lets a client abort one rollout's rids `${trace}:…` at once).
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

  add(rid: string): InFlight {
    const entry: InFlight = { rid, aborted: false, abortMessage: "", wake: () => {} };
    this.entries.add(entry);
    return entry;
  }

  delete(entry: InFlight): void {
    this.entries.delete(entry);
  }

  /** Aborts matching requests; an empty prefix matches nothing unless `all`. Returns the count. */
  abort(prefix: string, all: boolean, message: string): number {
    if (!all && prefix === "") return 0;
    let n = 0;
    for (const e of this.entries) {
      if (e.aborted || !(all || e.rid.startsWith(prefix))) continue;
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
