/**
 * A server-sent-event answer whose headers go out only when needed: a turn that finishes (or is
 * refused) quickly is answered with a plain status and body, so a refusal stays an HTTP 400 the
 * SDK does not retry. A turn that takes longer starts the stream with keepalive comments, which
 * every SDK's SSE decoder skips, so idle-read timeouts of agent SDKs never fire on a long turn.
 */
import type { ServerResponse } from "node:http";
import { type SseEvent, sseText } from "./dialects/dialect.ts";

export class SseStream {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly res: ServerResponse,
    keepaliveMs: number,
  ) {
    if (keepaliveMs > 0)
      this.timer = setInterval(() => {
        this.open();
        res.write(": keepalive\n\n");
      }, keepaliveMs);
  }

  /** Whether the status line went out (an error can then only be reported as an event). */
  get started(): boolean {
    return this.res.headersSent;
  }

  private open(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
  }

  /** Stops the keepalives; call before answering any other way. */
  settle(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes events mid-answer (opening the stream); the keepalives go on until `settle`. */
  write(events: readonly SseEvent[]): void {
    if (events.length === 0) return;
    this.open();
    this.res.write(sseText(events));
  }

  /** Writes the events and ends the answer. */
  end(events: readonly SseEvent[]): void {
    this.settle();
    this.open();
    this.res.end(sseText(events));
  }
}
