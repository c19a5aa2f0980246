/**
 * `/pause_generation` / `/continue_generation`: while paused, no request makes progress — new
 * ones wait before prefill, running ones stop emitting tokens — until generation continues.
 * (The `abort` mode additionally aborts everything in flight; that is the caller's part.)
 */
export class PauseGate {
  private gate: Promise<void> | null = null;
  private open: () => void = () => {};

  get paused(): boolean {
    return this.gate !== null;
  }

  pause(): void {
    if (this.gate) return;
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  resume(): void {
    const open = this.open;
    this.gate = null;
    open();
  }

  /** Resolves at once when not paused; otherwise when generation continues. */
  async wait(): Promise<void> {
    while (this.gate) await this.gate;
  }
}
