import assert from "node:assert/strict";
import { test } from "node:test";
import {
  PyFloat,
  parseJsonKeepingFloats,
  pyFloatRepr,
  pyJsonDumps,
} from "../../packages/core/src/text/py-json.ts";
import { pyLstrip, pyRstrip, pyStrip } from "../../packages/core/src/text/python-str.ts";

test("pyJsonDumps matches json.dumps(ensure_ascii=False) (expected strings from CPython 3.11)", () => {
  const src = '{"b": 1, "2": [1.0, 2.5e-7, 1e16, 123456789012345678901], "1": {"z": 0, "10": true}}';
  assert.equal(
    pyJsonDumps(parseJsonKeepingFloats(src)),
    '{"b": 1, "2": [1.0, 2.5e-07, 1e+16, 123456789012345678901], "1": {"z": 0, "10": true}}',
  );
  assert.equal(
    pyJsonDumps(parseJsonKeepingFloats("[1.50, -0.0, 0.0001, 1e-4, 12345678.9]")),
    "[1.5, -0.0, 0.0001, 0.0001, 12345678.9]",
  );
  assert.equal(
    pyJsonDumps({ s: 'é "q" \\ \n\t\u0001\u007f 🚀', n: null, a: [], o: {} }),
    '{"s": "é \\"q\\" \\\\ \\n\\t\\u0001\u007f 🚀", "n": null, "a": [], "o": {}}',
  );
  assert.equal(pyJsonDumps(parseJsonKeepingFloats('{"__proto__": 1}')), '{"__proto__": 1}');
  assert.equal(pyJsonDumps(new PyFloat(3)), "3.0");
});

test("pyFloatRepr follows repr(float) switch points", () => {
  const cases: [number, string][] = [
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [1.5e-4, "0.00015"],
    [1e16, "1e+16"],
    [1.2345e15, "1234500000000000.0"],
    [123.456, "123.456"],
    [-2.5e-10, "-2.5e-10"],
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
  ];
  for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, String(x));
});

test("Python strip semantics: whitespace set and explicit chars", () => {
  assert.equal(pyStrip("\u001c x \u0085"), "x");
  assert.equal(pyStrip("\ufeffx"), "\ufeffx"); // not whitespace in Python
  assert.equal(pyLstrip("\n\n x\n", "\n"), " x\n");
  assert.equal(pyRstrip("\n x \n\n", "\n"), "\n x ");
});

test("tool-call JSON is read like Python json.loads (NaN/Infinity accepted, other junk not)", async () => {
  const { parseToolCallJson } = await import("../../packages/core/src/renderers/qwen3/tool-call-json.ts");
  const ok = parseToolCallJson('{"name": "f", "arguments": {"x": NaN, "y": -Infinity}}');
  assert.equal(ok.status, "ok");
  assert.ok(Number.isNaN((ok.arguments as { x: number }).x));
  assert.equal(parseToolCallJson('{"name": "f", "arguments": {"x": nan}}').status, "invalid_json");
  assert.equal(parseToolCallJson('{"name": 0}').status, "missing_name");
  assert.deepEqual(parseToolCallJson("[1]"), { name: null, arguments: {}, status: "missing_name" });
});
