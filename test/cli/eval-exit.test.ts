/**
 * `envroll eval` through the real CLI: endpoint preflight, the model the engine serves, exit
 * codes of errored runs, sampling keys checked per client and dropped when a harness sends them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { EVAL_2X2, evalArgs, onlyRunDir, runCli } from "./cli-helpers.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "envroll-exit-"));

/** A server answering only the given `GET` paths (status, JSON body); everything else 404. */
async function fakeServer(
  routes: Record<string, [number, unknown]>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const [status, body] = routes[req.url ?? ""] ?? [404, { detail: "Not Found" }];
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

test("an unreachable endpoint fails in seconds, naming the URL and the cause, before any run folder", async () => {
  const { url, server } = await fakeServer({});
  await new Promise<void>((r) => server.close(() => r()));
  const out = tmp();
  const started = Date.now();
  const r = await runCli([
    "eval",
    "reverse-text",
    "-n",
    "2",
    "--engine",
    url,
    "--model",
    "Qwen/Qwen3-8B",
    "-o",
    out,
  ]);
  assert.notEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`cannot reach ${url}/get_model_info: ECONNREFUSED`));
  // "In seconds": no retries against a dead port (the bound covers CLI start-up on a loaded machine).
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
  assert.throws(() => onlyRunDir(out), "nothing was scheduled");
});

test("--engine without --model takes the served model; every rollout errored → exit 1 with the common error", async () => {
  const engine = await startEngine({ modelName: "Qwen/Qwen3-8B", faults: { rate: 1, kinds: ["5xx"] } });
  try {
    const out = tmp();
    const r = await runCli([...EVAL_2X2, "--engine", engine.url, "-o", out, "--client.max_retries", "0"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`model: Qwen/Qwen3-8B \\(from GET ${engine.url}/get_model_info\\)`));
    assert.match(r.stderr, /eval failed: all 4 rollouts errored/);
    assert.match(r.stderr, /most common error: \w+ \(4 of 4\)\nexample: .*50\d/);
    assert.match(onlyRunDir(out), /reverse-text--Qwen-Qwen3-8B--null/);
  } finally {
    await engine.close();
  }
});

test("--max-error-rate: a higher error rate fails the run; a lower one does not", async () => {
  const engine = await startEngine({
    modelName: "Qwen/Qwen3-8B",
    faults: { rate: 0.5, kinds: ["5xx"], seed: 3 },
  });
  try {
    const args = (out: string, rate: string) => [
      ...evalArgs(4, 2),
      "-c",
      "1",
      "--engine",
      engine.url,
      "-o",
      out,
      "--client.max_retries",
      "0",
      "--max-error-rate",
      rate,
    ];
    const strict = tmp();
    const failed = await runCli(args(strict, "0.1"));
    const summary = JSON.parse(readFileSync(join(onlyRunDir(strict), "summary.json"), "utf8"));
    assert.ok(summary.num_errors > 0 && summary.num_errors < 8, `some errored: ${summary.num_errors}`);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /eval failed: error rate [\d.]+% \(\d of 8\) is above max_error_rate 0.1/);
    const lenient = await runCli(args(tmp(), "1"));
    assert.equal(lenient.code, 0, lenient.stderr);
  } finally {
    await engine.close();
  }
});

test("an engine that cannot say which model it serves: eval asks for --model", async () => {
  const { url, server } = await fakeServer({ "/health": [200, {}] });
  try {
    const r = await runCli(["eval", "reverse-text", "-n", "1", "--engine", url, "-o", tmp()]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /did not say which model it serves .*\/get_model_info → HTTP 404.*; pass --model NAME/,
    );
  } finally {
    server.close();
  }
});

test("sampling keys are checked against the client that runs them, with a did-you-mean", async () => {
  const typo = await runCli(["eval", "reverse-text", "-n", "1", "--sampling.temprature", "0.5", "--dry-run"]);
  assert.equal(typo.code, 2);
  assert.match(
    typo.stderr,
    /sampling\.temprature: not a sampling key of the TrainClient .*\(did you mean "temperature"\?\)/,
  );
  const native = ["--sampling.max_new_tokens", "8", "--dry-run"];
  const train = await runCli(["eval", "reverse-text", "--engine", "http://127.0.0.1:1", ...native]);
  assert.equal(train.code, 0, train.stderr);
  const openai = await runCli(["eval", "reverse-text", "--openai", "http://127.0.0.1:1/v1", ...native]);
  assert.equal(openai.code, 2);
  assert.match(openai.stderr, /sampling\.max_new_tokens: not a sampling key of the EvalClient/);
});

test("keys the schema accepted but envroll ignored are refused by name", async () => {
  for (const [flag, value] of [
    ["--push", "true"],
    ["--server", "true"],
    ["--multiplex", "4"],
  ]) {
    const r = await runCli(["eval", "reverse-text", flag!, value!, "--dry-run"]);
    assert.equal(r.code, 2, `${flag}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${flag!.slice(2)}: not supported by envroll`));
  }
  const pool = await runCli([
    "eval",
    "reverse-text",
    "--engine",
    "http://127.0.0.1:1",
    "--client.pool_size",
    "2",
    "--dry-run",
  ]);
  assert.match(pool.stderr, /client\.pool_size: not supported by envroll/);
});

test("a header name keeps its dashes; a config path with '=' in it is a path", async () => {
  const dir = join(tmp(), "lr=1e-5");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(dir);
  const cfg = join(dir, "run.toml");
  writeFileSync(cfg, 'taskset = { id = "reverse-text" }\nnum_tasks = 3\n');
  const r = await runCli([
    "eval",
    cfg,
    "--engine",
    "http://127.0.0.1:1",
    "--client.headers.X-Api-Key",
    "k",
    "--dry-run",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /num_tasks = 3/);
  assert.match(r.stdout, /"X-Api-Key" = "k"|X-Api-Key = "k"/);
});

test("a harness program's sampling key the engine rejects is dropped, warned once, and listed in the trace", async () => {
  const dir = tmp();
  const program = join(dir, "agent.mjs");
  writeFileSync(
    program,
    `const body = { model: process.env.ENVROLL_MODEL, messages: JSON.parse(process.env.ENVROLL_PROMPT), response_format: { type: "text" } };
const res = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", { method: "POST", headers: { authorization: "Bearer " + process.env.OPENAI_API_KEY, "content-type": "application/json" }, body: JSON.stringify(body) });
if (!res.ok) { console.error(res.status, await res.text()); process.exit(1); }
`,
  );
  const out = join(dir, "out");
  const r = await runCli([
    ...EVAL_2X2,
    "-o",
    out,
    "--harness.id",
    "command",
    "--harness.command",
    JSON.stringify(["node", program]),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.match(/sampling key "response_format"/g)?.length, 1, r.stderr);
  const { traces } = readTraces(join(onlyRunDir(out), "traces.jsonl"));
  assert.equal(traces.length, 4);
  for (const t of traces) {
    assert.deepEqual(t.errors, []);
    assert.deepEqual(t.info["dropped_sampling_keys"], ["response_format"]);
  }
});

test("an engine whose served name selects no renderer is rendered by the tokenizer it reports", async () => {
  // The built-in engine serves "envroll-engine/reference" and reports SGLang's tokenizer_path.
  const engine = await startEngine({ policy: "reference" });
  try {
    const out = tmp();
    const r = await runCli([...evalArgs(2, 1), "--engine", engine.url, "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `model: Qwen/Qwen3-0\\.6B \\(tokenizer_path from GET ${engine.url}/get_model_info, which serves envroll-engine/reference\\)`,
      ),
    );
    const { traces } = readTraces(join(onlyRunDir(out), "traces.jsonl"));
    assert.equal(traces.length, 2);
    for (const t of traces) assert.deepEqual(t.errors, []);
  } finally {
    await engine.close();
  }
});
