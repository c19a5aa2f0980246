/**
 * `envroll tokens render|parse|bridge`: inspect what a renderer does, token by token.
 * With `--jsonl` it is a filter (one JSON request per stdin line → one JSON result per line; a
 * bad line answers `{"error": "line N: …"}` and processing continues), which is also how other
 * languages (e.g. Python tests) can call the renderer. Without it, it prints a readable view.
 */
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { parseJsonKeepingFloats } from "envroll/internal/text/py-json.ts";
import { type RendererChoice, rendererFor, runTokensRequest, type TokensOp } from "./tokens/requests.ts";
import { formatParse, formatTokenTable } from "./tokens/view.ts";

interface TokensFlags {
  model: string;
  tokenizerPath?: string;
  jsonl?: boolean;
  thinking?: boolean;
  preserveAllThinking?: boolean;
  preserveThinkingBetweenToolCalls?: boolean;
}

function toJson(x: unknown): string {
  return JSON.stringify(x, (_k, v) => (typeof v === "bigint" ? Number(v) : v));
}

async function runJsonl(op: TokensOp, choice: RendererChoice): Promise<void> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() === "") continue;
    let out: unknown;
    try {
      out = runTokensRequest(op, parseJsonKeepingFloats(line), choice);
    } catch (e) {
      out = { error: `${op}: line ${n}: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!process.stdout.write(`${toJson(out)}\n`)) await new Promise((r) => process.stdout.once("drain", r));
  }
}

async function runHuman(op: TokensOp, choice: RendererChoice): Promise<void> {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const req = parseJsonKeepingFloats(input.trim() || "{}");
  const result = runTokensRequest(op, req, choice);
  const renderer = rendererFor(choice);
  if (op === "parse") process.stdout.write(formatParse(result));
  else {
    const prior =
      op === "bridge" && result.ids
        ? (result.message_indices as number[]).findIndex((_, i, a) => a[i]! >= 0)
        : 0;
    process.stdout.write(formatTokenTable(renderer, result, op === "bridge" ? Math.max(0, prior) : 0));
  }
}

export function registerTokensCommand(program: Command): void {
  const tokens = program
    .command("tokens")
    .description("Render, parse or bridge token ids with a model's renderer (inspection / JSONL filter)");
  const ops: [TokensOp, string][] = [
    [
      "render",
      "messages → token ids with per-token attribution (fields: messages, tools, add_generation_prompt, enable_thinking)",
    ],
    ["parse", "completion ids → content, reasoning, tool calls (fields: completion_ids, tools)"],
    [
      "bridge",
      "extend a sampled prompt+completion by new messages (fields: prev_prompt_ids, prev_completion_ids, new_messages, tools, enable_thinking)",
    ],
  ];
  for (const [op, description] of ops) {
    tokens
      .command(op)
      .description(description)
      .option("-m, --model <name>", "model or renderer name (qwen3, Qwen/Qwen3-8B, …)", "qwen3")
      .option("--tokenizer-path <dir>", "folder with tokenizer.json + tokenizer_config.json")
      .option("--jsonl", "read one JSON request per stdin line, write one JSON result per line")
      .option("--no-thinking", "renderer default enable_thinking=false (requests may override)")
      .option("--preserve-all-thinking", "keep all historical reasoning (renderer-only flag)")
      .option("--preserve-thinking-between-tool-calls", "keep reasoning within the current tool cycle")
      .action(async (flags: TokensFlags) => {
        const choice: RendererChoice = {
          model: flags.model,
          tokenizerPath: flags.tokenizerPath,
          enableThinking: flags.thinking !== false,
          preserveAllThinking: flags.preserveAllThinking ?? false,
          preserveThinkingBetweenToolCalls: flags.preserveThinkingBetweenToolCalls ?? false,
        };
        if (flags.jsonl) await runJsonl(op, choice);
        else await runHuman(op, choice);
      });
  }
}
