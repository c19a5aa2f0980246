/**
 * What a streaming answer has sent of a turn, shared by every dialect's live answer: reasoning
 * (sent as it grows, before any content) and content (sent as it grows). At the end, the committed turn is compared
 * with it: only the part not yet sent goes out, and text the turn does not start with — which
 * the client's streaming rules are there to prevent — is reported as a divergence.
 */
import type { ModelResponse, StreamDelta } from "../../clients/client.ts";
import { contentText } from "../../types.ts";

export class LiveTurn {
  /** The turn's id and prompt size, from the first delta (null: nothing streamed). */
  id: string | null = null;
  promptTokens = 0;
  /** Reasoning sent (null: none); it is closed once content was sent. */
  reasoning: string | null = null;
  content = "";
  diverged = false;

  /** Keeps what `d` adds; returns it (reasoning after content started is not sent: divergence). */
  note(d: StreamDelta): { reasoning?: string; content?: string } {
    this.id ??= d.id;
    this.promptTokens = d.promptTokens;
    const out: { reasoning?: string; content?: string } = {};
    if (d.reasoning !== undefined && d.reasoning !== "") {
      if (this.content !== "") this.diverged = true;
      else {
        this.reasoning = (this.reasoning ?? "") + d.reasoning;
        out.reasoning = d.reasoning;
      }
    }
    if (d.content !== undefined && d.content !== "") {
      this.content += d.content;
      out.content = d.content;
    }
    return out;
  }

  /** What is left to send of the committed turn: the reasoning's rest (null: none) and the content's. */
  rest(r: ModelResponse): { reasoning: string | null; content: string } {
    const reasoning = typeof r.message.reasoning_content === "string" ? r.message.reasoning_content : null;
    const content = contentText(r.message.content);
    let reasoningLeft: string | null = reasoning;
    if (this.reasoning !== null) {
      if (reasoning === null || !reasoning.startsWith(this.reasoning)) {
        this.diverged = true;
        reasoningLeft = null;
      } else reasoningLeft = reasoning.slice(this.reasoning.length);
    }
    if (!content.startsWith(this.content)) {
      this.diverged = true;
      return { reasoning: reasoningLeft, content: "" };
    }
    return { reasoning: reasoningLeft, content: content.slice(this.content.length) };
  }
}
