/**
 * verifiers v0.2.0's glossary_v1, unchanged: its task declares a `vf.Toolset` (`facts`, tool
 * `lookup`), which the host serves with FastMCP's own tool wrapper; envroll's default harness
 * offers it as `facts_lookup`, the model calls it, and the task's `looked_up` reward checks the
 * fact reached the answer — 1 when the model used the tool's result, 0 when it did not, as
 * verifiers' own reward says for the same replies. Needs the real verifiers (real-v1.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { contentText, type Message } from "../../packages/core/src/types.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { needsRealV1, type RealV1, real } from "./real-v1.ts";

/** The named verifiers environment, unchanged, behind envroll's default harness. */
async function v1Environment(v1: RealV1, name: string) {
  const toml = [
    'model = "m"',
    'harness = { id = "default" }',
    v1.pythonToml(name),
    `taskset = { id = "${name}" }`,
  ];
  return loadEnvironment(await loadConfig(toml.join("\n")));
}

/** The prompt's first user message, matched against `pattern`: the entity or word it names. */
function promptArg(messages: readonly Message[], pattern: RegExp): string {
  return pattern.exec(contentText(messages.find((m) => m.role === "user")!.content))![1]!;
}

/**
 * Calls `tool` with the argument the prompt names (when `useTool`), then answers with what the
 * tool said; `answer` wraps that reply, or says what the model answers without the tool.
 */
function toolThenAnswer(
  tool: string,
  pattern: RegExp,
  args: (arg: string) => unknown,
  answer: (toolReply: string | null) => string,
  useTool = true,
): ScriptedClient {
  return new ScriptedClient((messages) => {
    const last = messages.at(-1)!;
    if (useTool && last.role !== "tool") return callTool(tool, args(promptArg(messages, pattern)), "call_0");
    return say(answer(last.role === "tool" ? contentText(last.content) : null));
  });
}

/** Calls `facts_lookup` for the entity in the prompt, then answers with what the tool said (or guesses). */
const lookupClient = (useTool: boolean) =>
  toolThenAnswer(
    "facts_lookup",
    /look up "([^"]+)"/,
    (name) => ({ name }),
    (reply) => `<answer>${reply ?? "no idea"}</answer>`,
    useTool,
  );

test(
  "glossary_v1: the task's MCP toolset is offered, called, and rewarded as verifiers does",
  needsRealV1,
  async () => {
    const v1 = real();
    const facts: Record<string, string> = JSON.parse(
      readFileSync(join(v1.src, "environments/glossary_v1/glossary_v1/servers/facts.json"), "utf8"),
    );
    const env = await v1Environment(v1, "glossary_v1");
    assert.equal(env.tasks.length, Object.keys(facts).length);
    for (const [i, task] of env.tasks.entries()) {
      const client = lookupClient(true);
      const [t] = await env.runGroup(i, 1, { client });
      assert.deepEqual(t!.errors, [], `task ${i}`);
      const offered = client.requests[0]!.tools.map((t) => t.name);
      assert.ok(offered.includes("facts_lookup"), offered.join(","));
      const tool = t!.nodes.find((n) => n.message.role === "tool")!;
      assert.equal(contentText(tool.message.content as string), (task as { answer?: string }).answer);
      assert.deepEqual(t!.rewards, { looked_up: 1 });
      const [skip] = await env.runGroup(i, 1, { client: lookupClient(false) });
      assert.deepEqual(skip!.rewards, { looked_up: 0 });
    }
    assert.deepEqual(
      env.tasks.map((t) => (t as { answer?: string }).answer),
      Object.values(facts),
    );
  },
);

/** Calls `scratchpad_roundtrip` with the word in the prompt, then answers with the tool's result. */
const roundtripClient = () =>
  toolThenAnswer(
    "scratchpad_roundtrip",
    /word="([^"]+)"/,
    (word) => ({ word }),
    (reply) => reply ?? "",
  );

test(
  "scratchpad_v1: a taskset-level shared toolset keeps each rollout's state apart",
  needsRealV1,
  async () => {
    const v1 = real();
    const env = await v1Environment(v1, "scratchpad_v1");
    // Eight rollouts at once on the one shared server instance: each must read back its own word.
    const runs = await Promise.all(
      env.tasks.slice(0, 8).map((_, i) => env.runGroup(i, 1, { client: roundtripClient() })),
    );
    for (const [t] of runs) {
      assert.deepEqual(t!.errors, []);
      assert.deepEqual(t!.rewards, { isolated: 1 });
    }
  },
);
