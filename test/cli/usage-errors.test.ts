/**
 * What a newcomer types wrong is an error that says so (issue 37): an unknown command or option
 * exits with the usage code and the nearest name, a model nothing can serve is refused before
 * anything runs, and an export that writes nothing exits non-zero saying why.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { errored, grid } from "../outputs/fixtures.ts";
import { runCli } from "./cli-helpers.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "envroll-usage-"));

test("an unknown command exits 2 and suggests the nearest one", async () => {
  const r = await runCli(["evl", "reverse-text"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /unknown command 'evl'/);
  assert.match(r.stderr, /Did you mean eval\?/);
  const sub = await runCli(["tokens", "rendr"]);
  assert.equal(sub.code, 2, sub.stderr);
  assert.match(sub.stderr, /Did you mean render\?/);
});

test("an unknown option exits 2 and suggests the nearest one; help and --version exit 0", async () => {
  const r = await runCli(["export", "traces.jsonl", "--formt", "parquet"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /unknown option '--formt'/);
  assert.match(r.stderr, /Did you mean --format\?/);
  // eval takes any config key as an option, so a misspelt one is a config key error.
  const e = await runCli(["eval", "reverse-text", "--num-task", "3", "--dry-run"]);
  assert.equal(e.code, 2, e.stderr);
  assert.match(e.stderr, /num_task: unknown key \(did you mean "num_tasks"\?\)/);
  const missing = await runCli(["export"]);
  assert.equal(missing.code, 2, missing.stderr);
  assert.equal((await runCli(["--version"])).code, 0);
  assert.equal((await runCli(["export", "--help"])).code, 0);
});

test("--model that looks like a path and does not exist is a usage error, on the built-in engine too", async () => {
  const out = tmp();
  const r = await runCli(["eval", "reverse-text", "--model", "./no-such-model-folder", "-n", "1", "-o", out]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /model "\.\/no-such-model-folder" looks like a path and does not exist/);
  assert.match(r.stderr, /checkpoint folder with tokenizer\.json/);
  assert.deepEqual(readdirSync(out), [], "nothing ran");
  const engine = await runCli([
    "eval",
    "reverse-text",
    "--engine",
    "http://127.0.0.1:9",
    "--model",
    "./no-such-model-folder",
    "-o",
    out,
  ]);
  assert.equal(engine.code, 2, engine.stderr);
  assert.match(engine.stderr, /does not exist/);
  assert.doesNotMatch(engine.stderr, /cannot reach/, "refused before the endpoint is asked");
});

test("a model name no renderer or tokenizer can serve is refused on the built-in engine, naming what works", async () => {
  const r = await runCli(["eval", "reverse-text", "--model", "foo-bar", "-n", "1", "--dry-run"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /model "foo-bar": no renderer or tokenizer can serve it/);
  assert.match(r.stderr, /Qwen\/Qwen3-0\.6B/);
  assert.match(r.stderr, /checkpoint folder/);
  const ok = await runCli(["eval", "reverse-text", "--model", "Qwen/Qwen3-8B", "-n", "1", "--dry-run"]);
  assert.equal(ok.code, 0, ok.stderr);
});

test("export of a file without traces writes nothing and exits 1 saying how many lines it skipped", async () => {
  const dir = tmp();
  const garbage = join(dir, "garbage.jsonl");
  writeFileSync(garbage, 'not json\n{"also": "not a trace"}\n');
  const out = join(dir, "samples.jsonl");
  const r = await runCli(["export", garbage, "-o", out]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /skipped 2 line\(s\) of .*garbage\.jsonl that are not trace records: 1, 2/);
  assert.match(r.stderr, /nothing exported, no file written/);
  assert.equal(existsSync(out), false);
});

test("export that skips some lines says how many and still writes the rest", async () => {
  const dir = tmp();
  const mixed = join(dir, "traces.jsonl");
  const traces = [...grid(1, 2, () => 1), errored(1, 0)];
  writeFileSync(mixed, `${traces.map((t) => JSON.stringify(t)).join("\n")}\n{"torn": \n`);
  const r = await runCli(["export", mixed]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote 3 sample\(s\) to .*samples\.jsonl \(1 unreadable line\(s\) skipped\)/);
  assert.match(r.stderr, /skipped 1 line\(s\) .*: 4$/m);
  assert.equal(readFileSync(join(dir, "samples.jsonl"), "utf8").trim().split("\n").length, 3);
  // Every trace errored and --skip-errored leaves them out: nothing to write is a failure too.
  const onlyErrored = join(dir, "errored.jsonl");
  writeFileSync(onlyErrored, `${JSON.stringify(errored(0, 0))}\n`);
  const none = await runCli(["export", onlyErrored, "--skip-errored", "-o", join(dir, "none.jsonl")]);
  assert.equal(none.code, 1, none.stderr);
  assert.match(none.stderr, /all 1 trace\(s\) .* errored and --skip-errored leaves them out/);
});
