/**
 * One rollout's memory of its last request in one dialect, so that a resent history costs what
 * its new part costs: the body is parsed past the bytes it shares with the last one
 * (resent-body.ts), the reused wire objects are translated once (`translated`), and the messages
 * and tools that still come out equal to the last request's (a split turn merged again, a tool
 * list re-made) are replaced by those very objects. Equal objects are interchangeable (nothing mutates a request's
 * messages), and identity is what every per-message cache downstream keys on — the trace's
 * message hashes, the client's bridge path — so the history is not hashed again each turn.
 */
import type { Message, Tool } from "../types.ts";
import type { DialectRequest } from "./dialects/dialect.ts";
import { ResentBody } from "./resent-body.ts";
import { sameJson } from "./same-json.ts";

export class ResentRequest {
  readonly body: ResentBody;
  /** Wire history objects → their messages (the dialect's ParseOptions.translated). */
  readonly translated = new WeakMap<object, unknown>();
  private messages: readonly Message[] = [];
  private tools: Tool[] = [];

  /** `historyKey`: the body member holding the conversation (`messages`, `input`). */
  constructor(historyKey: string) {
    this.body = new ResentBody(historyKey);
  }

  /** Puts the last request's objects in place of equal ones in `request` (its leading messages, its tools). */
  intern(request: DialectRequest): void {
    const last = this.messages;
    const now = request.messages;
    const n = Math.min(last.length, now.length);
    for (let i = 0; i < n; i++) {
      if (now[i] === last[i]) continue;
      if (!sameJson(last[i], now[i])) break;
      now[i] = last[i]!;
    }
    this.messages = now.slice();
    if (sameJson(this.tools, request.tools)) request.tools = this.tools;
    else this.tools = request.tools;
  }
}
