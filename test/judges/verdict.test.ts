/**
 * Verdict parsing of the two built-in judges, malformed replies included. The label cases'
 * expected values were produced by running Verifiers' own `parse_judge_choice` on the same inputs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { JudgeError } from "../../packages/core/src/errors.ts";
import {
  REFERENCE_FIELDS,
  REFERENCE_PROMPT,
  referenceVerdict,
} from "../../packages/core/src/judges/reference.ts";
import { referenceSection, sectionReference } from "../../packages/core/src/judges/rubric.ts";
import { firstVerdictsObject, scoreVerdicts } from "../../packages/core/src/judges/rubric-criteria.ts";
import { fenceFor, fillTemplate, templatePattern } from "../../packages/core/src/judges/template.ts";
import { lastBoxed, parseJudgeChoice } from "../../packages/core/src/judges/verdict.ts";

const YN = ["yes", "no"];
const CASES: [string, string[], string | null][] = [
  ["yes", YN, "yes"],
  ["No.", YN, "no"],
  ["", YN, null],
  ["<think>maybe yes", YN, null],
  ["<think>yes</think>no", YN, "no"],
  ["I think yes, but on reflection no", YN, "no"],
  ["Verdict: no. Although yes in part", YN, "no"],
  ["Reasoning about yes.\nFINAL ANSWER: no, it is wrong; yes", YN, "no"],
  ["The answer is \\boxed{yes}. no", YN, "yes"],
  ["\\boxed{maybe} yes", YN, null],
  ["yesterday nobody", YN, null],
  ["YES", YN, "yes"],
  ["ANSWERED yes", YN, "yes"],
  ["Verdict: maybe", YN, null],
  ["  \n\nVERDICT - B", ["A", "B"], "B"],
  ["A or B? I pick A", ["A", "B"], "A"],
  ["verdictyes", YN, "yes"],
  ["no_yes", YN, null],
  ["ja, das ist ähnlich: yesä", YN, null],
  ["\\boxed{no \\text{x}} yes", YN, "no"],
  ["\\boxed{unclosed yes", YN, "yes"],
  ["answer\nverdict: no\nverdict: yes", YN, "no"],
  ["first line\n  Final Verdict is: YES", YN, "yes"],
];

test("label verdicts follow Verifiers' parse_judge_choice, case by case", () => {
  for (const [text, choices, want] of CASES)
    assert.equal(parseJudgeChoice(text, choices), want, JSON.stringify(text));
  assert.equal(parseJudgeChoice(null, YN), null);
  assert.equal(lastBoxed("a \\boxed{x{y}z} b \\boxed{last}"), "last");
  assert.equal(lastBoxed("\\boxed{x{y}"), "");
});

test("reference verdict: positive 1, negative 0, custom labels; no label → JudgeError naming the reply", () => {
  assert.equal(referenceVerdict("Yes, it matches.", ["yes", "no"]), 1);
  assert.equal(referenceVerdict("FINAL VERDICT: no", ["yes", "no"]), 0);
  assert.equal(referenceVerdict("I'd go with B", ["A", "B"]), 0);
  for (const bad of ["maybe", "", "<think>yes", "yesno"])
    assert.throws(
      () => referenceVerdict(bad, ["yes", "no"]),
      (e: unknown) => e instanceof JudgeError && /no yes\/no verdict/.test(e.message),
      JSON.stringify(bad),
    );
});

const batch = [
  { name: "correct", text: "right answer", weight: 1, choices: ["no", "yes"] },
  { name: "style", text: "concise", weight: 1, choices: ["poor", "ok", "good"] },
];
const verdicts = (vs: unknown[]) => ({ verdicts: vs });

test("rubric verdicts: rank scores worst → best; every malformed shape is a JudgeError", () => {
  const ok = verdicts([
    { name: "style", reason: "r", verdict: "ok" },
    { name: "correct", reason: "r", verdict: "yes" },
  ]);
  assert.deepEqual(scoreVerdicts(ok, batch), { correct: 1, style: 0.5 });
  const malformed: [unknown, RegExp][] = [
    [{}, /malformed: verdicts/],
    [verdicts([{ name: "correct", verdict: "yes" }]), /malformed: verdicts\.0\.reason/],
    [verdicts([{ name: "correct", reason: "r", verdict: "yes" }]), /expected \["correct","style"\]/],
    [
      verdicts([
        { name: "correct", reason: "r", verdict: "yes" },
        { name: "correct", reason: "r", verdict: "no" },
        { name: "style", reason: "r", verdict: "ok" },
      ]),
      /answered criterion "correct" twice/,
    ],
    [
      verdicts([
        { name: "correct", reason: "r", verdict: "Yes" },
        { name: "style", reason: "r", verdict: "ok" },
      ]),
      /answered "Yes" for "correct", expected one of \["no","yes"\]/,
    ],
    [
      verdicts([
        { name: "correct", reason: "r", verdict: "yes" },
        { name: "style", reason: "r", verdict: "ok" },
        { name: "extra", reason: "r", verdict: "no" },
      ]),
      /expected \["correct","style"\]/,
    ],
  ];
  for (const [obj, re] of malformed)
    assert.throws(
      () => scoreVerdicts(obj, batch),
      (e: unknown) => e instanceof JudgeError && re.test(e.message),
    );
});

test("rubric replies: the first balanced object with `verdicts`, skipping prose and an echoed example", () => {
  const echoed = 'Format: {"verdicts": [{"name": "<n>", "verdict": "<v>"}, ...]}';
  const real = '{"verdicts": [{"name": "a}b", "reason": "has \\"quotes\\" and }", "verdict": "yes"}]}';
  assert.deepEqual(
    firstVerdictsObject(`Sure. ${echoed}\nHere: {"note": 1} ${real} trailing`),
    JSON.parse(real),
  );
  assert.equal(firstVerdictsObject("no json at all"), null);
  assert.equal(firstVerdictsObject('{"verdicts": [ unclosed'), null);
  assert.equal(firstVerdictsObject('{"other": {"verdict": "yes"}}'), null);
});

test("templates: one pass, literal braces and unknown placeholders kept, values never re-expanded", () => {
  const t = 'Q={question} A={answer} json={"k": 1} other={unknown}';
  assert.equal(
    fillTemplate(t, { question: "uses {answer}", answer: "42" }),
    'Q=uses {answer} A=42 json={"k": 1} other={unknown}',
  );
  assert.equal(fenceFor("plain"), "```");
  assert.equal(fenceFor("has ```` inside"), "`````");
  const fields = { question: "q ``` x", answer: "a\nb", response: "r", positive: "yes", negative: "no" };
  const groups = templatePattern(REFERENCE_PROMPT, REFERENCE_FIELDS).exec(
    fillTemplate(REFERENCE_PROMPT, fields),
  )?.groups;
  assert.deepEqual({ ...groups }, fields);
  assert.equal(sectionReference(referenceSection("x ``` y")), "x ``` y");
  assert.equal(sectionReference(""), null);
});
