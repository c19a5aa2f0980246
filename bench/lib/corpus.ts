/**
 * A fixed, seeded corpus of chat conversations for the renderer and bridging figures: plain
 * chats, reverse-text prompts (non-Latin text included, as in the shipped dataset) and tool
 * conversations with reasoning, so the tokenizer sees the mix a rollout produces.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../../packages/core/src/random.ts";
import type { RenderMessage, RenderTool } from "../../packages/core/src/renderers/renderer.ts";
import { ROOT } from "./child.ts";

/** The web-search tool of the tool conversations (bench/render.ts renders it alone). */
export const SEARCH_TOOL: RenderTool = {
  type: "function",
  function: {
    name: "search",
    description: "Search the web and return the top results.",
    parameters: { type: "object", properties: { query: { type: "string" }, top_k: { type: "integer" } } },
  },
};

export const TOOLS: RenderTool[] = [
  SEARCH_TOOL,
  {
    type: "function",
    function: {
      name: "calculate",
      description: "Evaluate an arithmetic expression.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];

/**
 * Words from the shipped reverse-text dataset (many scripts, numbers, code, punctuation): a
 * vocabulary large enough that word-level BPE caches warm up the way they do on real text.
 */
const WORDS = [
  ...new Set(
    readFileSync(join(ROOT, "packages/core/data/reverse-text/train.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => (JSON.parse(line) as { prompt: string }).prompt.split(/\s+/))
      .filter(Boolean),
  ),
];

/** `words` dataset words drawn with `r`, sometimes a number, and a full stop. */
export function sentence(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]!);
  if (r() < 0.3) out.push(String(Math.floor(r() * 100_000)));
  return `${out.join(" ")}.`;
}

/** Message i of a plain chat: one or two sentences of dataset words. */
export function chatTurn(i: number, salt: string, role: "user" | "assistant"): RenderMessage {
  const r = mulberry32(i * 7919 + salt.length);
  return { role, content: `${sentence(r, 8 + (i % 5) * 4)} (${salt} ${i})` };
}

/** One assistant tool-call turn and its tool result (turn t of a tool conversation). */
export function toolTurn(t: number, salt: string, r: () => number = mulberry32(t)): RenderMessage[] {
  return [
    {
      role: "assistant",
      content: t % 3 === 0 ? `Looking up part ${t} of ${salt}.` : "",
      reasoning_content: `Step ${t}: ${sentence(r, 12)}`,
      tool_calls: [
        {
          id: `c${t}`,
          type: "function",
          function: { name: "search", arguments: { query: `${salt} detail ${t}`, top_k: 3 } },
        },
      ],
    },
    { role: "tool", tool_call_id: `c${t}`, content: `Result ${t}: ${sentence(r, 40)}` },
  ];
}

export interface Conversation {
  messages: RenderMessage[];
  tools: RenderTool[] | null;
}

/** `size` conversations; the last message of each is an assistant reply (parsed by the bench). */
export function corpus(size: number, seed = 1): Conversation[] {
  const r = mulberry32(seed);
  const out: Conversation[] = [];
  for (let i = 0; i < size; i++) {
    const kind = i % 3;
    if (kind === 0) {
      const turns = 1 + Math.floor(r() * 4);
      const messages: RenderMessage[] = [{ role: "system", content: sentence(r, 10) }];
      for (let t = 0; t < turns; t++) {
        messages.push({ role: "user", content: sentence(r, 8 + Math.floor(r() * 30)) });
        messages.push({ role: "assistant", content: sentence(r, 10 + Math.floor(r() * 60)) });
      }
      out.push({ messages, tools: null });
    } else if (kind === 1) {
      const text = sentence(r, 10 + Math.floor(r() * 40));
      out.push({
        messages: [
          {
            role: "system",
            content: "Reverse the text character-by-character. Put your answer in <reversed_text> tags.",
          },
          { role: "user", content: text },
          {
            role: "assistant",
            content: `<reversed_text>\n${[...text].reverse().join("")}\n</reversed_text>`,
          },
        ],
        tools: null,
      });
    } else {
      const turns = 1 + Math.floor(r() * 8);
      const messages: RenderMessage[] = [
        { role: "system", content: "You are a careful research assistant." },
        { role: "user", content: sentence(r, 20) },
      ];
      for (let t = 0; t < turns; t++) messages.push(...toolTurn(t, `topic-${i}`, r));
      messages.push({ role: "assistant", content: sentence(r, 30), reasoning_content: sentence(r, 15) });
      out.push({ messages, tools: TOOLS });
    }
  }
  return out;
}
