/**
 * plain-words: the taskset of the CPU learning run. Each task names a topic and asks for plain
 * lowercase words; a simulated user asks for more after every reply, so an episode has
 * `max_turns` turns (and a turn waiting on the model can meet a weight update).
 *
 * Reward `plain` = share of the assistant's characters that are ASCII lowercase letters or
 * spaces, over all its replies. Why a random tiny model learns it within minutes: the reward is
 * graded (a reply of mixed tokens earns partial credit, so rollouts of a group differ and every
 * GRPO advantage is informative), about a quarter of the Qwen3 vocabulary is such tokens, and
 * raising their share needs no skill the model lacks, only moving probability mass onto a class
 * of tokens it already samples. At temperature 0.1 the random model's distribution is peaked
 * enough (its top 1,000 tokens hold ≈20% of the mass) that each step's gradient visibly moves
 * what it samples next.
 */
import { defineTaskset, type TraceView } from "../../packages/core/src/task.ts";
import { contentText } from "../../packages/core/src/types.ts";

const TOPICS = [
  "apples",
  "rivers",
  "stones",
  "clouds",
  "gardens",
  "music",
  "tables",
  "lights",
  "forests",
  "winter",
  "bread",
  "horses",
  "boats",
  "mountains",
  "letters",
  "candles",
];

export const FOLLOW_UP = "Go on, in plain lowercase words.";

function replies(trace: TraceView): string {
  return trace.messages
    .filter((m) => m.role === "assistant")
    .map((m) => contentText(m.content))
    .join("");
}

/** Share of characters that are a-z or a space; 0 for an empty reply. */
export function plainShare(text: string): number {
  const chars = [...text];
  if (chars.length === 0) return 0;
  return chars.filter((c) => c === " " || (c >= "a" && c <= "z")).length / chars.length;
}

export default defineTaskset<{ idx: number; prompt: string; topic: string }>({
  id: "plain-words",
  description: "Write about a topic in plain lowercase words (graded: share of a-z and spaces).",
  defaults: { harness: { id: "null" } },
  load() {
    return TOPICS.map((topic, idx) => ({
      idx,
      topic,
      prompt: `Write about ${topic} in plain lowercase words.`,
    }));
  },
  user: () => ({ respond: () => [{ role: "user", content: FOLLOW_UP }] }),
  rewards: [{ name: "plain", weight: 1.0, fn: ({ trace }) => plainShare(replies(trace)) }],
});
