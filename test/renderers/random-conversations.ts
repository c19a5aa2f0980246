/** Seeded random conversations for property tests (deterministic: same seed, same cases). */

import type { RenderMessage, RenderTool } from "../../packages/core/src/renderers/renderer.ts";

// NFC-stable pieces (so decode(encode(x)) === x) including boundary-sensitive whitespace.
const PIECES = [
  "hello",
  " world",
  "\n",
  "\n\n",
  "  ",
  "é",
  "天气",
  "🚀",
  "x.",
  "{}",
  "'s",
  "123",
  "\t",
  "\r\n",
  "<tool_response>",
  "</tool_response>",
  "</think>",
  "<think>",
  "<|im_end|>",
  ":",
  '"q"',
  "ü",
];

export const TOOLS: RenderTool[] = [
  {
    type: "function",
    function: {
      name: "search",
      description: "Search ✓",
      parameters: { type: "object", properties: { q: { type: "string" } } },
    },
  },
  {
    name: "calc",
    description: "Calc",
    parameters: { type: "object", properties: { expr: { type: "string" } } },
  },
];

export class ConversationGen {
  private n = 0;
  constructor(readonly rand: () => number) {}
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }
  text(max = 5): string {
    let s = "";
    const k = Math.floor(this.rand() * (max + 1));
    for (let i = 0; i < k; i++) s += this.pick(PIECES);
    return s;
  }
  toolCall(): Record<string, unknown> {
    const id = `c${++this.n}`;
    const args = this.pick<unknown>([
      { q: this.text(2) },
      '{"q": "s"}',
      { n: 7, f: [true, null], o: { k: "ü" } },
      {},
    ]);
    if (this.rand() < 0.25) return { id, name: "calc", arguments: args };
    return { id, type: "function", function: { name: "search", arguments: args } };
  }
  assistant(): RenderMessage {
    const m: RenderMessage = { role: "assistant", content: this.text() };
    if (this.rand() < 0.4) m.reasoning_content = this.text(3);
    if (this.rand() < 0.35) m.tool_calls = [this.toolCall(), ...(this.rand() < 0.3 ? [this.toolCall()] : [])];
    return m;
  }
  /** Non-assistant messages following an assistant (tool results for its calls, then maybe a user). */
  followUps(asst: RenderMessage): RenderMessage[] {
    const out: RenderMessage[] = [];
    for (const tc of (asst.tool_calls ?? []) as { id: string }[]) {
      out.push({ role: "tool", tool_call_id: tc.id, content: this.text() });
    }
    if (out.length === 0 || this.rand() < 0.3) {
      if (this.rand() < 0.15) out.push({ role: "system", content: this.text() });
      out.push({ role: "user", content: this.text() });
    }
    return out;
  }
  conversation(turns: number): RenderMessage[] {
    const msgs: RenderMessage[] = [];
    if (this.rand() < 0.4) msgs.push({ role: "system", content: this.text() });
    msgs.push({ role: "user", content: this.text() });
    for (let t = 0; t < turns; t++) {
      const a = this.assistant();
      msgs.push(a, ...this.followUps(a));
    }
    return msgs;
  }
}
