/**
 * What the memory bench's in-process transport answers, per workload, as token ids ending in the
 * stop token. `reverse`: one of 16 reverse-text replies in turn. `tools`: the bench tool loop's
 * policy (tool-loop.ts), read from the tail of the prompt — the last tool result says which step
 * finished — so the episode runs exactly as it does against the engine.
 */
import type { TokenIds } from "../../packages/core/src/token-sequence.ts";
import type { Tokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { toolLoopReply } from "./tool-loop.ts";

export function cannedReplies(
  workload: "reverse" | "tools",
  tokenizer: Tokenizer,
  stopId: number,
): (inputIds: TokenIds, n: number) => number[] {
  const cache = new Map<string, number[]>();
  const ids = (text: string) => {
    let v = cache.get(text);
    if (!v) {
      v = [...tokenizer.encode(text), stopId];
      cache.set(text, v);
    }
    return v;
  };
  if (workload === "reverse")
    return (_inputIds, n) => ids(`<reversed_text>\n${"olleh dlrow ".repeat(3 + (n % 16))}\n</reversed_text>`);
  return (inputIds) => {
    // The last tool result (or the task prompt on turn 1) lies within the prompt's last ~100 tokens.
    const tail = tokenizer.decode(inputIds.slice(-100));
    const text = toolLoopReply(tail);
    if (text === null)
      throw new Error(`tool loop: no step marker in the prompt's tail: ${JSON.stringify(tail)}`);
    return ids(text);
  };
}
