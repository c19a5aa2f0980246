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
import { probeSandbox } from "../../packages/core/src/runtimes/sandbox/probe.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { assertSampledExact } from "../interception/harness-check.ts";
import {
  type AgentId,
  type AgentRun,
  CODEX_CODE_MODE,
  codeModeReplay,
  GENERIC,
  KV_VALUE,
  replayRows,
  runAgentEpisode,
  SECOND_KEY,
  SECOND_VALUE,
  SECRET_WORD,
  SLOW_TOOLSET,
  userSimReplay,
} from "./agent-episode.ts";
import { runAgentServed } from "./agent-served.ts";

const skip = process.env["ENVROLL_SKIP_AGENTS"] === "1" ? "ENVROLL_SKIP_AGENTS=1" : false;
const probe = await probeSandbox({ bwrap: null, mode: "auto" });
const noSandbox = probe.ok ? false : `no sandbox here: ${probe.reason}`;
/** The runtime an agent needs: the network (to reach envroll), room for Node and the agent. */
const SANDBOX =
  'runtime = { type = "sandbox", network = true, memory_mb = 65536, processes = 512, cpu_s = 600, timeout_s = 600, tmp_size_mb = 512 }\n';

function assertEpisode(run: AgentRun, label: string, linear = true): void {
  const r = run.record;
  assert.deepEqual(r.errors, [], `${label}: ${JSON.stringify(r.errors)}`);
  assert.equal(r.stop_condition, "agent_completed", label);
  assert.equal(r.num_turns, 3, `${label}: shell, MCP tool, answer`);
  if (linear) assert.equal(r.branches.length, 1, `${label}: one branch for a linear agent`);
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
      assertSampledExact(run, `${agent}/train`);
    },
  );

  test(`${agent}: the same episode in eval`, { skip }, async () => {
    const run = await runAgentEpisode(agent, agent, { mode: "eval" });
    assertEpisode(run, `${agent}/eval`);
  });

  test(
    `${agent}: the same episode through the generic acp harness, beside a slow MCP server`,
    { skip },
    async () => {
      // The slow server takes 2 s to list its tools. codex-acp connects the MCP servers given in
      // session/new in the background: unless the harness waits for the agent to list them, its
      // first turn goes without their tools and a later turn has them (a new prompt: the trace
      // forked into two branches).
      const run = await runAgentEpisode("acp", agent, {
        mode: "train",
        acp: GENERIC[agent],
        extraToml: SLOW_TOOLSET,
      });
      assertEpisode(run, `${agent}/acp`);
      assertSampledExact(run, `${agent}/acp`);
      assert.equal(run.record.info["mcp_unlisted"], undefined);
    },
  );

  test(`${agent}: the generic acp harness in eval`, { skip }, async () => {
    const run = await runAgentEpisode("acp", agent, { mode: "eval", acp: GENERIC[agent] });
    assertEpisode(run, `${agent}/acp-eval`);
  });

  if (agent === "codex")
    test(
      "codex: code mode (no config layer) through the generic acp harness: tools arrive in additional_tools, shell and MCP go through exec",
      { skip },
      async () => {
        const run = await runAgentEpisode("acp", "codex", {
          mode: "train",
          acp: CODEX_CODE_MODE,
          replay: codeModeReplay(),
        });
        assertEpisode(run, "codex/code-mode");
        assertSampledExact(run, "codex/code-mode");
      },
    );

  test(
    `${agent}: a user simulator's turns are prompts in the same ACP session (one branch, token-exact)`,
    { skip },
    async () => {
      const run = await runAgentEpisode(agent, agent, {
        mode: "train",
        userSim: true,
        replay: userSimReplay(agent),
      });
      const r = run.record;
      assert.deepEqual(r.errors, [], JSON.stringify(r.errors));
      assert.equal(r.stop_condition, "agent_completed");
      assert.equal(r.num_turns, 5, "shell, lookup, answer; then lookup, answer");
      assert.equal(r.reward, 1, r.last_reply);
      // The second interaction turn extends the first's conversation: a new session (or a new
      // agent) would start over, and the trace would fork.
      assert.equal(r.branches.length, 1);
      const users = r.nodes
        .filter((n) => n.message.role === "user")
        .map((n) => contentText(n.message.content));
      const opening = users.findIndex((t) => t.includes("look up the key `color`"));
      const second = users.findIndex((t) => t.includes(`look up the key \`${SECOND_KEY}\``));
      assert.ok(opening >= 0 && second > opening, JSON.stringify(users).slice(0, 500));
      assert.deepEqual(
        ((r.info["tool_calls"] as { arguments: { key: string } }[]) ?? []).map((c) => c.arguments.key),
        ["color", SECOND_KEY],
      );
      assert.ok(r.last_reply.includes(SECOND_VALUE));
      assertSampledExact(run, `${agent}/user-sim`);
    },
  );

  test(
    `${agent}: the episode on the sandbox runtime (bubblewrap, network shared, the install cache read-only)`,
    { skip: skip || noSandbox },
    async () => {
      const run = await runAgentEpisode(agent, agent, {
        mode: "train",
        acp: SANDBOX,
        // The shell's hostname says where the command ran: bubblewrap names its UTS namespace.
        replay: replayRows(agent, `echo ${SECRET_WORD} $(hostname)`),
      });
      assertEpisode(run, `${agent}/sandbox`);
      assertSampledExact(run, `${agent}/sandbox`);
      const tools = run.record.nodes
        .filter((n) => n.message.role === "tool")
        .map((n) => contentText(n.message.content));
      assert.ok(
        tools.some((t) => t.includes(`${SECRET_WORD} sandbox`)),
        JSON.stringify(tools).slice(0, 400),
      );
    },
  );

  test(
    `${agent}: the episode through the training service (envroll serve's /rollout → one Miles sample, token-exact)`,
    { skip },
    async () => {
      const { lines, samples, generates, turns } = await runAgentServed(agent, agent);
      const groups = lines.filter((l) => l["type"] === "group");
      assert.equal(groups.length, 1, JSON.stringify(lines).slice(0, 1000));
      assert.equal(groups[0]!["drop_reason"], null, JSON.stringify(groups[0]).slice(0, 1000));
      // One rollout, one branch: one sample (a forked trace would be several, or a dropped group).
      assert.equal(samples.length, 1);
      const sample = samples[0]!;
      assert.equal(sample.reward, 1);
      assert.equal(turns.length, 3, "shell, MCP tool, answer");
      assert.equal(generates.length, 3);
      for (const [i, ids] of generates.entries())
        assert.deepEqual(
          sample.tokens.slice(0, ids.length),
          ids,
          `/generate ${i} is not a prefix of the sample`,
        );
      const start = sample.tokens.length - sample.response_length;
      const masked = sample.loss_mask.flatMap((m, i) => (m ? [sample.tokens[start + i]!] : []));
      const maskedLogprobs = sample.loss_mask.flatMap((m, i) => (m ? [sample.rollout_log_probs[i]!] : []));
      assert.deepEqual(
        masked,
        turns.flatMap((t) => t.completionIds),
        "sampled ids = the loss-masked tokens",
      );
      assert.deepEqual(
        maskedLogprobs,
        turns.flatMap((t) => t.logprobs),
        "sampled logprobs = the sample's",
      );
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
