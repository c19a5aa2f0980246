/** `taskset.task.judges`: V1 keys and defaults, each judge's own keys, and unique reward keys. */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";

const taskset = defineTaskset({
  id: "judged",
  load: () => [{ idx: 0, prompt: "q", answer: "a" }],
  rewards: [{ name: "lcs", fn: () => 1 }],
  groupRewards: [{ name: "fastest", fn: ({ traces }) => traces.map(() => 0) }],
});

const load = (judges: string) =>
  loadConfig(`num_rollouts = 2\n[taskset]\nid = "judged"\n${judges}`, {}, { taskset });

function configError(re: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.match(e.message, re);
    return true;
  };
}

test("a reference judge gets V1's defaults for every key", async () => {
  const c = await load('[[taskset.task.judges]]\nid = "reference"\n');
  assert.deepEqual(c.taskset.task.judges, [
    {
      id: "reference",
      name: "",
      weight: 1,
      model: "openai/gpt-5.4-nano",
      sampling: {},
      prompt: null,
      prompt_file: null,
      base_url: "https://api.pinference.ai/api/v1",
      api_key_var: "PRIME_API_KEY",
      headers: {},
      answer_field: "answer",
      question_field: "",
      view: "last_reply",
      choices: ["yes", "no"],
    },
  ]);
});

test("a rubric judge: path required, V1 defaults for the rest", async () => {
  await assert.rejects(
    load('[[taskset.task.judges]]\nid = "rubric"\n'),
    configError(/judges\.0\.path: required/),
  );
  const rubric = join(mkdtempSync(join(tmpdir(), "envroll-rubric-")), "r.toml");
  writeFileSync(rubric, '[[criteria]]\nname = "a"\ntext = "x"\n');
  const c = await load(`[[taskset.task.judges]]\nid = "rubric"\npath = "${rubric}"\nmax_criteria = 2\n`);
  const j = c.taskset.task.judges[0]!;
  assert.equal(j["view"], "full_trace");
  assert.equal(j["answer_field"], "");
  assert.equal(j["max_criteria"], 2);
  assert.equal(j["structured_output"], false);
  assert.deepEqual(j["weights"], {});
});

test("bad judge entries are config errors naming the key", async () => {
  const cases: [string, RegExp][] = [
    ["[[taskset.task.judges]]\nname = 'x'\n", /taskset\.task\.judges\.0\.id: required: a judge id/],
    [
      '[[taskset.task.judges]]\nid = "reference"\nanswer_feild = "a"\n',
      /judges\.0\.answer_feild: unknown key \(did you mean "answer_field"\?\)/,
    ],
    [
      '[[taskset.task.judges]]\nid = "reference"\nchoices = ["Yes", "yes"]\n',
      /judges\.0\.choices: expected two non-empty labels that differ/,
    ],
    ['[[taskset.task.judges]]\nid = "reference"\nchoices = ["a", "b", "c"]\n', /judges\.0\.choices/],
    [
      '[[taskset.task.judges]]\nid = "reference"\nweight = inf\n',
      /judges\.0\.weight: expected a finite number/,
    ],
    [
      '[[taskset.task.judges]]\nid = "reference"\nview = "everything"\n',
      /judges\.0\.view: expected one of "last_reply", "full_trace"/,
    ],
    [
      '[[taskset.task.judges]]\nid = "reference"\nprompt = "p"\nprompt_file = "f"\n',
      /judges\.0\.prompt_file: give prompt or prompt_file, not both/,
    ],
    ['[[taskset.task.judges]]\nid = "reference"\nbase_url = "ftp://x"\n', /judges\.0\.base_url/],
    [
      '[[taskset.task.judges]]\nid = "rubric"\npath = "r.toml"\nmax_criteria = 0\n',
      /judges\.0\.max_criteria/,
    ],
  ];
  for (const [toml, re] of cases) await assert.rejects(load(toml), configError(re), toml);
});

test("a judge whose reward key is taken is a config error naming both", async () => {
  await assert.rejects(
    load('[[taskset.task.judges]]\nid = "reference"\nname = "lcs"\n'),
    configError(
      /judges\.0\.name: judge "reference" would record its reward as "lcs", the key of reward "lcs" of taskset "judged"/,
    ),
  );
  await assert.rejects(
    load('[[taskset.task.judges]]\nid = "reference"\nname = "fastest"\n'),
    configError(/the key of group reward "fastest"/),
  );
  await assert.rejects(
    load(
      '[[taskset.task.judges]]\nid = "reference"\n[[taskset.task.judges]]\nid = "reference"\nanswer_field = "b"\n',
    ),
    configError(/judges\.1\.name: .*"reference", the key of judge taskset\.task\.judges\.0 \("reference"\)/),
  );
  const ok = await load(
    '[[taskset.task.judges]]\nid = "reference"\n[[taskset.task.judges]]\nid = "reference"\nname = "strict"\n',
  );
  assert.equal(ok.taskset.task.judges.length, 2);
});

test("module judges: imported and their own keys checked with the config, before anything loads", async () => {
  const dir = join(import.meta.dirname, "fixtures");
  const mod = join(dir, "length-judge.ts");
  const good = await load(`[[taskset.task.judges]]\nid = "${mod}"\nlimit = 3\n`);
  assert.equal(good.taskset.task.judges[0]!["limit"], 3, "the module's own key, validated and typed");
  const env = await loadEnvironment(good, { taskset });
  assert.deepEqual(
    env.judges.map((j) => [j.name, j.weight]),
    [["length-judge", 1]],
  );
  await env.close();
  // Each is refused by loadConfig itself: no environment, task row or rollout exists yet.
  await assert.rejects(load(`[[taskset.task.judges]]\nid = "${mod}"\nlimt = 3\n`), (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.match(e.path ?? "", /^taskset\.task\.judges\.0/);
    assert.match(e.message, /judges\.0\.limt: unknown key/);
    return true;
  });
  await assert.rejects(
    load(`[[taskset.task.judges]]\nid = "${join(dir, "nope.ts")}"\n`),
    configError(/judges\.0\.id: cannot load judge/),
  );
  await assert.rejects(
    load('[[taskset.task.judges]]\nid = "referense"\n'),
    configError(/cannot load judge "referense" \(did you mean "reference"\?\)/),
  );
  await assert.rejects(
    load('[[taskset.task.judges]]\nid = "reference"\nprompt_file = "/nonexistent/judge-prompt.txt"\n'),
    configError(/judges\.0\.prompt_file: cannot read \/nonexistent\/judge-prompt\.txt: ENOENT/),
  );
});

test("rubric files are checked with the config, naming the key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-rubric-"));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const cases: [string, RegExp][] = [
    [join(dir, "absent.toml"), /cannot read rubric/],
    [write("empty.json", '{"criteria": []}'), /lists no criteria/],
    [
      write("dup.json", '[{"name": "a", "text": "x"}, {"name": "a", "text": "y"}]'),
      /repeats a criterion name/,
    ],
    [
      write("one.toml", '[[criteria]]\nname = "a"\ntext = "x"\nchoices = ["only"]\n'),
      /criteria\.0\.choices: expected at least 2/,
    ],
    [
      write("zero.toml", '[[criteria]]\nname = "a"\ntext = "x"\nweight = 0\n'),
      /no positive criterion weight/,
    ],
  ];
  for (const [path, re] of cases)
    await assert.rejects(
      load(`[[taskset.task.judges]]\nid = "rubric"\npath = "${path}"\n`),
      configError(new RegExp(`judges\\.0\\.path: .*${re.source}`)),
      path,
    );
  const ok = write("ok.toml", '[[criteria]]\nname = "a"\ntext = "x"\n');
  await assert.rejects(
    load(`[[taskset.task.judges]]\nid = "rubric"\npath = "${ok}"\nweights = { b = 2 }\n`),
    configError(/judges\.0\.weights: "b" name no criterion/),
  );
});
