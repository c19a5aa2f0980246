/**
 * Issue 36, the adversarial suite: agent programs (the `command` harness on its default runtime,
 * a real process with only the agent's credential) that try to raise their reward without
 * solving the task — tampering with the tests and result files, symlinks on grader paths, reading
 * the answer from the task endpoint, the servers' credential or the host's files, writing state,
 * outliving the episode into grading, killing their parent, ending early or crashing. Each must
 * score exactly what an honest wrong attempt scores, and the attempt must be on the trace. A
 * solving program scores 1, so the grader can tell them apart. The same attacks on the host
 * (explicit subprocess runtime) show which of them are real there.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { probeSandbox } from "../../packages/core/src/runtimes/sandbox/probe.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { ANSWER, vault } from "./vault.ts";

const available = await probeSandbox({ bwrap: null, mode: "auto" });
const skip = available.ok ? false : `bubblewrap cannot sandbox here: ${available.reason}`;
const adversary = fileURLToPath(new URL("./agents/adversary.mjs", import.meta.url));

// What a host keeps beside a run: its output folder's traces (answers included) and the dataset.
const host = mkdtempSync(join(tmpdir(), "envroll-adversarial-"));
after(() => rmSync(host, { recursive: true, force: true }));
mkdirSync(join(host, "out", "run"), { recursive: true });
writeFileSync(join(host, "out", "run", "traces.jsonl"), `${JSON.stringify({ task: { answer: ANSWER } })}\n`);
mkdirSync(join(host, "data"));
writeFileSync(join(host, "data", "vault.jsonl"), `${JSON.stringify({ answer: ANSWER })}\n`);
const canary = join(host, "canary.txt");
writeFileSync(canary, "the user's file\n");

interface Run {
  record: TraceRecord;
  /** What the program told the model (its findings). */
  told: string;
}

interface Options {
  runtime?: string;
  server?: boolean;
  /** Given to the program (the solving control only). */
  solution?: string;
}

async function attempt(attack: string, o: Options = {}): Promise<Run> {
  const client = new ScriptedClient(() => say("ok"));
  const toml = [
    'harness.id = "command"',
    `harness.command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(adversary)}, "${attack}"]`,
    `harness.env = { CANARY = ${JSON.stringify(canary)}${o.solution ? `, SOLUTION = "${o.solution}"` : ""} }`,
    ...(o.runtime ? [`harness.runtime.type = "${o.runtime}"`] : []),
  ].join("\n");
  const env = await envFor(vault(o.server ?? false), toml);
  try {
    assert.equal(env.config.harness.runtime.type, o.runtime ?? "sandbox", "the default isolates programs");
    const [record] = await env.runGroup(0, 1, { client });
    const last = client.requests.at(-1)?.messages.at(-1);
    return { record: record!, told: last ? contentText(last.content) : "" };
  } finally {
    await env.close();
  }
}

const guard = (r: TraceRecord) => (r.info["guard"] as string[] | undefined) ?? [];
const table: string[] = [];
after(() =>
  console.log(`adversarial suite (attack | runtime | reward | honest | recorded)\n${table.join("\n")}`),
);

/** Runs one attack and checks it against the honest baseline; `recorded` says where the trace shows it. */
async function expectNoGain(attack: string, recorded: (run: Run) => string, o: Options = {}): Promise<Run> {
  const run = await attempt(attack, o);
  const honest = baseline.get(o.runtime ?? "sandbox")!;
  const where = recorded(run);
  table.push(`${attack} | ${o.runtime ?? "sandbox (default)"} | ${run.record.reward} | ${honest} | ${where}`);
  assert.equal(run.record.reward, honest, `${attack} raised its reward: ${run.told} ${guard(run.record)}`);
  assert.ok(where, `${attack} left no record on the trace: ${run.told} ${guard(run.record)}`);
  return run;
}

const baseline = new Map<string, number>();

test("the honest baselines: a wrong answer scores 0, the right one 1", { skip }, async () => {
  for (const runtime of ["sandbox", "subprocess"]) {
    const honest = await attempt("honest", runtime === "subprocess" ? { runtime } : {});
    assert.deepEqual(honest.record.errors, []);
    assert.equal(honest.record.reward, 0);
    assert.deepEqual(honest.record.info["grader_files"], {
      "tests/check.sh": "placed",
      "tests/public.sh": "intact",
      ".grader/result": "placed",
    });
    assert.deepEqual(guard(honest.record), [], "an honest attempt leaves no guard record");
    baseline.set(runtime, honest.record.reward);
  }
  const solved = await attempt("solve", { solution: ANSWER });
  assert.equal(solved.record.reward, 1, "the grader passes the right answer");
});

const status = (r: TraceRecord, path: string) => (r.info["grader_files"] as Record<string, string>)[path];
const noted = (r: TraceRecord, pattern: RegExp) => guard(r).find((g) => pattern.test(g)) ?? "";

test("tampering with the tests and the result file is undone before grading", { skip }, async () => {
  await expectNoGain("overwrite-tests", ({ record }) =>
    status(record, "tests/check.sh") === "replaced"
      ? noted(record, /tests\/check\.sh: the agent's version/)
      : "",
  );
  await expectNoGain("delete-tests", ({ record }) =>
    status(record, "tests/public.sh") === "placed"
      ? "grader_files: tests/public.sh placed (was deleted)"
      : "",
  );
  await expectNoGain("plant-result", ({ record }) => noted(record, /\.grader\/result: the agent's version/));
});

test("symlinks on grader paths are removed, not written through", { skip }, async () => {
  await expectNoGain("symlink-devnull", ({ record }) =>
    noted(record, /check\.sh: the agent's symlink -> \/dev\/null/),
  );
  await expectNoGain("symlink-folder", ({ record }) =>
    noted(record, /the agent's symlink tests -> decoy removed/),
  );
  for (const runtime of [undefined, "subprocess"]) {
    await expectNoGain(
      "symlink-host-file",
      ({ record }) => noted(record, /symlink -> .*canary\.txt removed/),
      {
        runtime,
      },
    );
    assert.equal(
      readFileSync(canary, "utf8"),
      "the user's file\n",
      "the host file behind the link was overwritten",
    );
  }
});

test("the agent's credential reads no hidden field and writes no state", { skip }, async () => {
  const read = await expectNoGain("read-task", ({ record }) =>
    noted(record, /GET \/task .*: answer withheld/),
  );
  assert.match(read.told, /GET \/task: 200 /);
  assert.doesNotMatch(read.told, /ANSWER-/);
  await expectNoGain("put-state", ({ record, told }) =>
    /PUT \/state: 403/.test(told) ? noted(record, /PUT \/state with the agent's credential refused/) : "",
  );
});

test(
  "the host's files and the servers' credential are out of the default runtime's reach",
  { skip },
  async () => {
    for (const attack of ["steal-server-secret", "search-files"]) {
      await expectNoGain(
        attack,
        ({ told }) =>
          /found: /.test(told) && !/secret of pid|answer ANSWER-/.test(told)
            ? `agent's message: ${told}`
            : "",
        {
          server: attack === "steal-server-secret",
        },
      );
      // On the host the same program finds the answer: the attack is real where isolation is off.
      const open = await attempt(attack, { runtime: "subprocess", server: attack === "steal-server-secret" });
      table.push(
        `${attack} | subprocess (explicit) | ${open.record.reward} | 0 | not isolated: ${open.told.slice(0, 80)}`,
      );
      assert.ok(open.record.reward! > 0, `on the host ${attack} should find the answer: ${open.told}`);
    }
  },
);

test("processes that outlive the program are ended before grading", { skip }, async () => {
  await expectNoGain("outlive", ({ record }) =>
    status(record, "tests/check.sh") === "replaced" ? "grader_files: tests/check.sh replaced" : "",
  );
  await expectNoGain(
    "outlive",
    ({ record }) =>
      noted(
        record,
        /process\(es\) the agent left running were killed before grading \(found by inherited marker/,
      ),
    {
      runtime: "subprocess",
    },
  );
  // Without the inherited marker: found by its working folder.
  await expectNoGain(
    "outlive-clean-env",
    ({ record }) => noted(record, /process\(es\) the agent left running were killed before grading/),
    { runtime: "subprocess" },
  );
  // Inside the sandbox the parent is the namespace's init, which ignores the signal.
  await expectNoGain("kill-parent", ({ told }) =>
    /kill(ed)? parent/.test(told) ? `agent's message: ${told}` : "",
  );
});

test("ending the episode early or crashing dodges no check", { skip }, async () => {
  await expectNoGain("end-early", ({ record }) =>
    record.num_turns === 0 && record.stop_condition === "agent_completed"
      ? "num_turns 0, agent_completed"
      : "",
  );
  const crash = await attempt("crash");
  const honest = baseline.get("sandbox")!;
  table.push(
    `crash | sandbox (default) | ${crash.record.reward} | ${honest} | ${crash.record.errors[0]?.type}`,
  );
  assert.equal(crash.record.errors[0]?.type, "HarnessError");
  assert.ok((crash.record.reward ?? 0) <= honest);
});
