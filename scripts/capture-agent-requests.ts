/**
 * Captures what the real agents send to the model endpoint, at the versions the `codex` and
 * `claude_code` harnesses pin, into test/fixtures/agents/<agent>.requests.json (the dialect
 * conformance tests parse these; nothing is written by hand). Each agent runs the multi-turn
 * tool episode of test/agents/agent-episode.ts through envroll; every request body a dialect
 * receives is recorded before it is parsed (a refused body is recorded too, so a new agent
 * version's first failing request is captured). Secrets and per-run ids are replaced by
 * placeholders so a re-capture diffs only where the agent changed.
 *
 *   node --import tsx scripts/capture-agent-requests.ts [codex|claude_code|codex_code_mode ...]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicDialect } from "../packages/core/src/interception/dialects/anthropic/index.ts";
import type { Dialect } from "../packages/core/src/interception/dialects/dialect.ts";
import { responsesDialect } from "../packages/core/src/interception/dialects/responses/index.ts";
import { CODEX_CODE_MODE, codeModeReplay, runAgentEpisode } from "../test/agents/agent-episode.ts";

const OUT = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "agents");

const captured: { dialect: string; body: unknown }[] = [];
for (const dialect of [responsesDialect, anthropicDialect] as Dialect[]) {
  const parse = dialect.parse;
  (dialect as { parse: Dialect["parse"] }).parse = (body, options) => {
    captured.push({ dialect: dialect.name, body: structuredClone(body) });
    return parse(body, options);
  };
}

/** Per-run values (temp paths, ids, dates) become stable placeholders. */
function scrub(text: string): string {
  return text
    .replace(/\/tmp\/envroll-[A-Za-z0-9_-]+/g, "/tmp/envroll-XXXX")
    .replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      "00000000-0000-0000-0000-000000000000",
    )
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/\b[0-9a-f]{48}\b/g, "SECRET")
    .replace(/\b[0-9a-f]{64}\b/g, "DEVICE")
    .replace(/\d{4}-\d{2}-\d{2}/g, "2026-01-01");
}

/** What is captured: each preset's episode, and Codex in code mode through the generic harness. */
const CAPTURES: Record<string, () => ReturnType<typeof runAgentEpisode>> = {
  codex: () => runAgentEpisode("codex", "codex", { mode: "train" }),
  claude_code: () => runAgentEpisode("claude_code", "claude_code", { mode: "train" }),
  codex_code_mode: () =>
    runAgentEpisode("acp", "codex", { mode: "train", acp: CODEX_CODE_MODE, replay: codeModeReplay() }),
};

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CAPTURES);
mkdirSync(OUT, { recursive: true });
for (const name of names) {
  const capture = CAPTURES[name];
  if (!capture) throw new Error(`unknown capture ${name} (have: ${Object.keys(CAPTURES).join(", ")})`);
  captured.length = 0;
  const run = await capture();
  const file = join(OUT, `${name}.requests.json`);
  writeFileSync(file, `${scrub(JSON.stringify(captured, null, 1))}\n`);
  console.log(
    `${name}: ${captured.length} requests -> ${file}; turns ${run.record.num_turns}, branches ${run.record.branches.length}, stop ${run.record.stop_condition}, errors ${JSON.stringify(run.record.errors).slice(0, 2000)}`,
  );
}
