/**
 * Issue 36, grader isolation: task fields a taskset marks hidden (`hiddenFields`) are not
 * readable with the agent's credential. An adversarial agent program (the `command` harness,
 * a real process talking HTTP) reads `GET /task` with its own key and hands whatever it got to
 * the model, whose reply is scored: the answer must be missing, so its reward is that of an
 * honest wrong answer, and the attempt is on the trace (the program's message). The taskset's
 * own tool server, started by envroll with the servers' credential, reads the whole row.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { contentText, type Message } from "../../packages/core/src/types.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";

const counter = [
  process.execPath,
  "--import",
  import.meta.resolve("tsx"),
  fileURLToPath(new URL("./servers/counter.ts", import.meta.url)),
];
const secret = `ANSWER-${randomBytes(12).toString("hex")}`;

const vault = defineTaskset({
  id: "vault",
  load: () => [{ idx: 0, prompt: "Name the answer.", answer: secret, level: 3 }],
  hiddenFields: ["answer"],
  // As a tool server might: the answer copied into state for the environment's own later calls.
  setup: ({ task, trace }) => {
    trace.state["answer"] = task["answer"];
    trace.state["hint"] = "starts with ANSWER-";
  },
  toolsets: [{ name: "counter", command: counter }],
  rewards: [{ name: "correct", fn: ({ trace, task }) => (trace.lastReply.includes(task["answer"]) ? 1 : 0) }],
});

// The agent program: reads /task with its own key (and looks for the servers' key in its
// environment), then tells the model what it found.
const dir = mkdtempSync(join(tmpdir(), "envroll-hidden-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const program = join(dir, "peek.mjs");
writeFileSync(
  program,
  `const base = process.env.OPENAI_BASE_URL;
const auth = { authorization: "Bearer " + process.env.OPENAI_API_KEY };
const root = base.replace(/\\/v1$/, "");
const got = await (await fetch(root + "/task", { headers: auth })).json();
const state = await (await fetch(root + "/state", { headers: auth })).json();
const vf = Object.keys(process.env).filter((k) => k.startsWith("VF_"));
const content = "task: " + got.task + " state: " + JSON.stringify(state) + " vf: " + JSON.stringify(vf);
const r = await fetch(base + "/chat/completions", {
  method: "POST",
  headers: { ...auth, "content-type": "application/json" },
  body: JSON.stringify({ model: process.env.ENVROLL_MODEL, messages: [{ role: "user", content }] }),
});
if (!r.ok) throw new Error("model call failed: " + r.status);
`,
);

test("the agent program's GET /task and GET /state lack the hidden field: its reward stays that of a wrong answer", async () => {
  // The model repeats what the program told it: an answer the program found would score 1.
  const client = new ScriptedClient((messages) => say(contentText(messages.at(-1)!.content)));
  const env = await envFor(
    vault,
    `harness.id = "command"\nharness.command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(program)}]\nharness.runtime.type = "subprocess"`,
  );
  try {
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    const told = contentText((client.requests[0]!.messages.at(-1) as Message).content);
    const [, task, state] = /^task: (\{.*\}) state: (\{.*\}) vf: /.exec(told)!;
    assert.deepEqual(
      JSON.parse(task!),
      { idx: 0, prompt: "Name the answer.", level: 3 },
      "visible fields stay readable",
    );
    assert.deepEqual(JSON.parse(state!), { hint: "starts with ANSWER-" }, "state keeps what is not hidden");
    assert.match(String(r!.info["guard"]), /GET \/state with the agent's credential: answer withheld/);
    assert.match(told, / vf: \[\]$/, "the servers' credential is not in the agent's environment");
    assert.doesNotMatch(told, new RegExp(secret), "the answer reached the agent");
    assert.equal(r!.reward, 0, "reward of an honest wrong answer");
    assert.match(r!.last_reply, /^task: \{"idx":0/, "the attempt is on the trace");
  } finally {
    await env.close();
  }
});

test("the taskset's tool server reads the whole row, hidden field included, with its own credential", async () => {
  let turn = 0;
  const client = new ScriptedClient(() =>
    turn++ === 0 ? callTool("counter_task_row", {}, "c1") : say("done"),
  );
  const env = await envFor(vault, "", {
    "harness.id": "default",
    "harness.disabled_tools": ["bash", "edit"],
  });
  try {
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    const tool = r!.nodes.find((n) => n.message.role === "tool")!;
    assert.deepEqual(JSON.parse(contentText(tool.message.content as string)), {
      idx: 0,
      prompt: "Name the answer.",
      answer: secret,
      level: 3,
    });
  } finally {
    await env.close();
  }
});
