/**
 * messageHash is message identity: two messages hash equal exactly when the canonical JSON of
 * their identity tuple (role, content — an assistant's "" as null —, reasoning, tool calls with
 * canonical arguments, tool_call_id) is equal. Checked over every pair of a varied set.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson, messageHash } from "../../packages/core/src/trace/hash.ts";
import type { Message } from "../../packages/core/src/types.ts";

function canonicalArguments(raw: string): string {
  try {
    return canonicalJson(JSON.parse(raw));
  } catch {
    return raw;
  }
}

/** The identity as the tuple's canonical JSON: the definition the digest must agree with. */
function identity(m: Message): string {
  switch (m.role) {
    case "system":
    case "user":
      return canonicalJson([m.role, m.content]);
    case "tool":
      return canonicalJson([m.role, m.content, m.tool_call_id ?? null]);
    case "assistant":
      return canonicalJson([
        m.role,
        m.content === "" ? null : (m.content ?? null),
        m.reasoning_content ?? null,
        (m.tool_calls ?? []).map((c) => [c.id, c.name, canonicalArguments(c.arguments)]),
      ]);
  }
}

function variants(): Message[] {
  const texts = ["", "x", "xy", "héllo 世界 🎉", '"quoted"', "null", "a\u0000b", "ab".repeat(40)];
  const out: Message[] = [];
  for (const t of texts) {
    out.push({ role: "user", content: t }, { role: "system", content: t });
    out.push({ role: "assistant", content: t }, { role: "assistant", content: t, reasoning_content: t });
    out.push({ role: "tool", tool_call_id: t, content: t });
  }
  out.push({ role: "assistant", content: null }, { role: "assistant", content: null, reasoning_content: "" });
  out.push({ role: "user", content: [{ type: "text", text: "x" }] });
  out.push({ role: "user", content: [{ text: "x", type: "text" }] });
  out.push({ role: "user", content: [{ type: "text", text: "xy" }] });
  out.push({ role: "tool", tool_call_id: "1", content: [{ type: "text", text: "x" }] });
  for (const args of ['{"b":1,"a":2}', '{"a":2,"b":1}', '{"a":2}', "{bad", "[1,2]", "[2,1]", ""])
    for (const id of ["1", "2"])
      out.push({ role: "assistant", content: null, tool_calls: [{ id, name: "f", arguments: args }] });
  out.push({
    role: "assistant",
    content: "",
    tool_calls: [
      { id: "1", name: "f", arguments: "{}" },
      { id: "2", name: "g", arguments: '{"x":[1,{"z":1,"y":2}]}' },
    ],
  });
  out.push({ role: "assistant", content: "", tool_calls: [] });
  return out;
}

test("messageHash agrees with the canonical identity on every pair", () => {
  const a = variants();
  // Fresh objects on the other side, so the per-object cache plays no part.
  const b = variants();
  let equalPairs = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < b.length; j++) {
      const same = identity(a[i]!) === identity(b[j]!);
      if (same) equalPairs++;
      assert.equal(
        messageHash(a[i]!) === messageHash(b[j]!),
        same,
        `${JSON.stringify(a[i])} vs ${JSON.stringify(b[j])}`,
      );
    }
  // Beyond i == j: "" vs null assistants, reordered keys and arguments, empty tool_calls.
  assert.ok(equalPairs > a.length, `only ${equalPairs} equal pairs`);
  for (const m of a) assert.match(messageHash(m), /^[0-9a-f]{32}$/);
});
