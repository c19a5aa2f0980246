/** The handler, stop or tool called `name` in a taskset's list: a test of it fails plainly when it is missing. */
import assert from "node:assert/strict";

export function named<T extends { name: string }>(list: readonly T[] | undefined, name: string): T {
  const found = list?.find((x) => x.name === name);
  assert.ok(found, `no "${name}" among ${list?.map((x) => x.name).join(", ") || "none"}`);
  return found;
}
