/**
 * Sampled tool-call arguments a dialect cannot carry verbatim. Anthropic's `tool_use.input` must
 * be an object, so a call sampled with a list, a bare string or malformed text goes out wrapped
 * (`{"arguments": <text>}`); echoed back, it would parse as a different call and fork the
 * trace. The session remembers, per call id it answered, the text the echo parses to and the
 * text that was sampled, and puts the sampled text back. Only ids this session answered are
 * restored, so a program's own call that happens to look wrapped keeps its meaning.
 */
import type { Message } from "../types.ts";

export class EchoedArguments {
  private readonly byId = new Map<string, { echo: string; sampled: string }>();

  /** `echoOf(args)`: what the dialect's parse makes of the answered call, null when it is `args`. */
  note(message: Message, echoOf: (args: string) => string | null): void {
    if (message.role !== "assistant") return;
    for (const c of message.tool_calls ?? []) {
      const echo = echoOf(c.arguments);
      if (echo !== null) this.byId.set(c.id, { echo, sampled: c.arguments });
    }
  }

  /** The messages with every echoed wrapped call back to its sampled arguments (copies only what changes). */
  restore(messages: Message[]): Message[] {
    if (this.byId.size === 0) return messages;
    let out = messages;
    messages.forEach((m, i) => {
      if (m.role !== "assistant" || !m.tool_calls) return;
      let changed = false;
      const calls = m.tool_calls.map((c) => {
        const known = this.byId.get(c.id);
        if (!known || known.echo !== c.arguments) return c;
        changed = true;
        return { ...c, arguments: known.sampled };
      });
      if (!changed) return;
      if (out === messages) out = [...messages];
      out[i] = { ...m, tool_calls: calls };
    });
    return out;
  }
}
