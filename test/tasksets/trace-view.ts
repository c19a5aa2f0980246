/** A plain TraceView for testing handlers directly (TraceView is an interface; this is one). */
import type { TraceView } from "../../packages/core/src/task.ts";
import type { Message } from "../../packages/core/src/types.ts";

export function traceView(over: Partial<TraceView> & { lastReply?: string } = {}): TraceView {
  const lastReply = over.lastReply ?? "";
  const messages: Message[] = over.messages
    ? [...over.messages]
    : lastReply === ""
      ? []
      : [{ role: "assistant", content: lastReply }];
  return {
    id: "t0",
    lastReply,
    numTurns: messages.filter((m) => m.role === "assistant").length,
    messages,
    metrics: {},
    rewards: {},
    reward: 0,
    stopCondition: null,
    errors: [],
    isTruncated: false,
    state: {},
    info: {},
    ...over,
  };
}
