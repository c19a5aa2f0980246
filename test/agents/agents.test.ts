/**
 * The real agents, unchanged, at the versions the harnesses pin: Codex (codex-acp 2.6.0 →
 * codex 0.166.0) and Claude Code (claude-agent-acp 0.67.0 → Claude Code 2.1.232), each through
 * its preset harness and the generic `acp` harness, running a three-turn episode — a shell
 * command, the task's MCP tool, the answer — against the built-in engine with a replay policy.
 * Checked in training (TrainClient: one branch, every sampled id and logprob a loss-masked
 * token, every later turn bridged) and in eval; a dead model endpoint is a typed error, not a
 * finished episode. The agents install on first use into the shared agent cache
 * (~/.cache/envroll/agents, ~850 MB, about a minute from the npm registry); set
 * ENVROLL_SKIP_AGENTS=1 to skip.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { branchToSample } from "../../packages/core/src/miles/convert.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { type AgentId, type AgentRun, KV_VALUE, runAgentEpisode, SECRET_WORD } from "./agent-episode.ts";

const skip = process.env["ENVROLL_SKIP_AGENTS"] === "1" ? "ENVROLL_SKIP_AGENTS=1" : false;

function assertEpisode(run: AgentRun, label: string): void {
  const r = run.record;
  assert.deepEqual(r.errors, [], `${label}: ${JSON.stringify(r.errors)}`);
  assert.equal(r.stop_condition, "agent_completed", label);
  assert.equal(r.num_turns, 3, `${label}: shell, MCP tool, answer`);
  assert.equal(r.branches.length, 1, `${label}: one branch for a linear agent`);
  assert.equal(r.reward, 1, `${label}: ${r.last_reply}`);
  const tools = r.nodes.filter((n) => n.message.role === "tool").map((n) => contentText(n.message.content));
  assert.ok(
    tools.some((t) => t.includes(SECRET_WORD)),
    `${label}: the shell output is in the trace`,
  );
  assert.ok(
    tools.some((t) => t.includes(KV_VALUE)),
    `${label}: the MCP tool output is in the trace`,
  );
  const calls = (r.info["tool_calls"] as { server: string; tool: string }[] | undefined) ?? [];
  assert.deepEqual(
    calls.map((c) => `${c.server}.${c.tool}`),
    ["kv.lookup"],
    label,
  );
}

function assertTokenExact(run: AgentRun, label: string): void {
  const { record, generates, turns } = run;
  assert.equal(generates.length, turns.length, label);
  const branch = record.branches[0]!.token_ids;
  for (const [i, ids] of generates.entries())
    assert.deepEqual(
      branch.slice(0, ids.length),
      ids,
      `${label}: /generate ${i} is not a prefix of the branch`,
    );
  const sample = branchToSample(record, 0);
  const start = sample.tokens.length - sample.response_length;
  const masked: number[] = [];
  const logprobs: number[] = [];
  sample.loss_mask.forEach((m, i) => {
    if (!m) return;
    masked.push(sample.tokens[start + i]!);
    logprobs.push(sample.rollout_log_probs[i]!);
  });
  assert.deepEqual(
    masked,
    turns.flatMap((t) => t.completionIds),
    `${label}: sampled ids ≠ loss-masked tokens`,
  );
  assert.deepEqual(
    logprobs,
    turns.flatMap((t) => t.logprobs),
    `${label}: logprobs differ`,
  );
  assert.equal(run.bridged, turns.length - 1, `${label}: every later turn bridged, none re-rendered`);
}

/**
 * The generic harness runs an agent from its command and packages alone; the toolsets go to it
 * in `session/new` and the endpoint in the standard variables (OPENAI_BASE_URL/OPENAI_API_KEY,
 * ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY).
 */
/** `${NAME}`: a rollout variable, expanded by the acp harness. */
const rolloutVar = (name: string) => "$".concat("{", name, "}");
const CODEX_AUTH = JSON.stringify({
  methodId: "gateway",
  _meta: {
    gateway: {
      baseUrl: rolloutVar("OPENAI_BASE_URL"),
      headers: { Authorization: `Bearer ${rolloutVar("OPENAI_API_KEY")}` },
    },
  },
});
/**
 * codex-acp under the generic harness (gateway auth from harness.env, MCP servers from
 * session/new) starts but never reaches the model within 300 s; the codex preset (MCP in
 * config.toml) is the supported way to run it, so the generic case is skipped until that is
 * understood.
 */
const GENERIC_SKIP: Record<AgentId, string | false> = {
  codex: "codex-acp through the generic harness hangs before its first model call (see comment)",
  claude_code: false,
};
const GENERIC: Record<AgentId, string> = {
  codex: `env = { INITIAL_AGENT_MODE = "agent-full-access", NO_BROWSER = "1", DEFAULT_AUTH_REQUEST = ${JSON.stringify(CODEX_AUTH)} }\n[harness.acp]\ncommand = ["codex-acp"]\npackages = ["@agentclientprotocol/codex-acp@2.6.0"]\nprompt_timeout = 300\n`,
  claude_code:
    'env = { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1", DISABLE_AUTOUPDATER = "1" }\n[harness.acp]\ncommand = ["claude-agent-acp"]\npackages = ["@agentclientprotocol/claude-agent-acp@0.67.0"]\nprompt_timeout = 300\n',
};

test(
  "claude_code: the max_tokens Claude Code asks for (32000) is clamped to what the context leaves",
  { skip },
  async () => {
    const run = await runAgentEpisode("claude_code", "claude_code", {
      mode: "train",
      contextLength: 50000,
      sampling: "",
    });
    assertEpisode(run, "claude_code/clamp");
    const budgets = run.record.nodes.filter((n) => n.sampled).map((n) => n.token_budget);
    assert.equal(budgets.length, 3);
    for (const b of budgets) {
      assert.equal(b?.capped_by, "context_length", JSON.stringify(b));
      assert.ok(b!.max_new_tokens! < 32000 && b!.max_new_tokens! > 0, JSON.stringify(b));
    }
  },
);

for (const agent of ["codex", "claude_code"] as AgentId[]) {
  test(
    `${agent}: shell + MCP episode through the ${agent} harness, token-exact with the TrainClient`,
    { skip },
    async () => {
      const run = await runAgentEpisode(agent, agent, { mode: "train" });
      assertEpisode(run, `${agent}/train`);
      assertTokenExact(run, `${agent}/train`);
    },
  );

  test(`${agent}: the same episode in eval`, { skip }, async () => {
    const run = await runAgentEpisode(agent, agent, { mode: "eval" });
    assertEpisode(run, `${agent}/eval`);
  });

  test(
    `${agent}: the same episode through the generic acp harness`,
    { skip: skip || GENERIC_SKIP[agent] },
    async () => {
      const run = await runAgentEpisode("acp", agent, { mode: "train", acp: GENERIC[agent] });
      assertEpisode(run, `${agent}/acp`);
      assertTokenExact(run, `${agent}/acp`);
    },
  );

  test(`${agent}: a dead model endpoint is a typed error, not a finished episode`, { skip }, async () => {
    const run = await runAgentEpisode(agent, agent, { mode: "train", engineDown: true });
    assert.equal(run.record.num_turns, 0);
    assert.notEqual(run.record.stop_condition, "agent_completed");
    assert.equal(run.record.stop_condition, "error");
    // The model call's own failure, not the agent's account of it (Codex answers with the error
    // text and ends its prompt normally; Claude Code retries, then fails the prompt).
    assert.equal(run.record.errors[0]?.type, "ProviderConnectionError", JSON.stringify(run.record.errors));
    assert.match(run.record.errors[0]!.message, /ECONNREFUSED/);
  });
}
