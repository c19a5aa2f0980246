/**
 * A record's token arrays are packed: JSON.stringify (every record is written or streamed)
 * takes V8's per-element slow path on holey arrays, about half the speed. Sampled logprobs are
 * stored as doubles from the start (no second backing store).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { TS_LOADER } from "../ts-loader.ts";

test("every token array of a trace record is packed; logprobs with fractions are double arrays", () => {
  const helper = fileURLToPath(new URL("./helpers/record-kinds.ts", import.meta.url));
  const text = execFileSync(process.execPath, ["--allow-natives-syntax", "--import", TS_LOADER, helper], {
    encoding: "utf8",
    timeout: 120_000,
  });
  const kinds = JSON.parse(text) as Record<string, { holey: boolean; doubles: boolean; length: number }>;
  const names = Object.keys(kinds);
  assert.ok(names.length >= 12, `expected node and branch arrays, got ${names.join(", ")}`);
  const holey = names.filter((k) => kinds[k]!.length > 0 && kinds[k]!.holey);
  assert.deepEqual(holey, [], "holey record arrays");
  const sampledLogprobs = names.filter((k) =>
    /^branches\[\d+\]\.logprobs$|^nodes\[(2|4)\]\.logprobs$/.test(k),
  );
  assert.ok(sampledLogprobs.length >= 2, `no sampled logprobs among ${names.join(", ")}`);
  for (const k of sampledLogprobs) assert.equal(kinds[k]!.doubles, true, `${k} is not a double array`);
});
