/**
 * `tool_choice`, as far as it can be honoured token-exactly. The model samples freely from the
 * prompt the chat template renders; envroll has no constrained decoding and does not write
 * tokens into a turn the model did not sample. So:
 *
 * - `auto` (or absent): the tools as offered.
 * - `none`: the tools are left out of the prompt — the model is not offered any, which is the
 *   only way to keep it from calling one without touching what it samples.
 * - an allowed-tools list in `auto` mode (OpenAI): only those tools are offered.
 * - anything that forces a call (`required`, Anthropic `any`, a named tool, an allowed-tools list
 *   in `required` mode): refused with a 400 naming the field, rather than answered with a turn
 *   that may not call the tool the program was promised.
 *
 * Anthropic's `disable_parallel_tool_use` is not enforced either, but a turn with several calls
 * is still a valid answer to it, so it is accepted (the template decides what the model sees).
 */
import type { Tool } from "../../types.ts";
import { array, fail, type Json, object, string } from "./fields.ts";

export type ToolChoice =
  | { kind: "auto" }
  | { kind: "none" }
  /** Only these tools, by the name the program knows them by; `required`: one must be called. */
  | { kind: "allowed"; names: string[]; required: boolean }
  | { kind: "forced"; what: string };

const FORCED_WHY =
  "cannot be enforced here: the model samples freely from the chat template's prompt (no constrained decoding), so a turn could come back without the call; send auto or none";

/** The tools to offer under `choice` (`wireName`: how the program names a tool, when it differs). */
export function offeredTools(
  choice: ToolChoice,
  tools: Tool[],
  path: string,
  wireName: (t: Tool) => string = (t) => t.name,
): Tool[] {
  switch (choice.kind) {
    case "auto":
      return tools;
    case "none":
      return [];
    case "forced":
      return fail(path, `${choice.what} ${FORCED_WHY}`);
    case "allowed": {
      if (choice.required) return fail(path, `an allowed-tools list in mode "required" ${FORCED_WHY}`);
      const known = new Set(tools.map(wireName));
      const unknown = choice.names.find((n) => !known.has(n));
      if (unknown !== undefined)
        fail(path, `allows ${JSON.stringify(unknown)}, which is not among the tools`);
      return tools.filter((t) => choice.names.includes(wireName(t)));
    }
  }
}

/** `"none"`, `"auto"`, `"required"`: the OpenAI strings. */
function openAiString(v: string, path: string): ToolChoice {
  if (v === "auto") return { kind: "auto" };
  if (v === "none") return { kind: "none" };
  if (v === "required") return { kind: "forced", what: '"required"' };
  return fail(path, `expected "auto", "none", "required" or an object, got ${JSON.stringify(v)}`);
}

/**
 * What the two OpenAI dialects share: absent is auto, a string is one of the OpenAI strings, and
 * an object is told apart by its `type` (in `byType`).
 */
function openAiToolChoice(
  v: unknown,
  path: string,
  byType: (o: Json, type: string) => ToolChoice,
): ToolChoice {
  if (v == null) return { kind: "auto" };
  if (typeof v === "string") return openAiString(v, path);
  const o = object(v, path);
  return byType(o, string(o["type"], `${path}.type`));
}

/** Chat completions: a string, `{type: "function", function: {name}}`, `{type: "allowed_tools", allowed_tools}`. */
export function chatToolChoice(v: unknown, path = "tool_choice"): ToolChoice {
  return openAiToolChoice(v, path, (o, type) => {
    if (type === "function") {
      const name = string(object(o["function"], `${path}.function`)["name"], `${path}.function.name`);
      return { kind: "forced", what: `the named function ${JSON.stringify(name)}` };
    }
    if (type === "custom") return { kind: "forced", what: "a named custom tool" };
    if (type === "allowed_tools") {
      const at = object(o["allowed_tools"], `${path}.allowed_tools`);
      const names = array(at["tools"], `${path}.allowed_tools.tools`).map((t, i) => {
        const p = `${path}.allowed_tools.tools[${i}]`;
        const tool = object(t, p);
        const fn = tool["function"];
        return string(fn == null ? tool["name"] : object(fn, `${p}.function`)["name"], `${p}.function.name`);
      });
      return { kind: "allowed", names, required: mode(at["mode"], `${path}.allowed_tools.mode`) };
    }
    return fail(`${path}.type`, `expected function, custom or allowed_tools, got ${JSON.stringify(type)}`);
  });
}

/** Responses: a string, `{type: "function", name}`, `{type: "allowed_tools", mode, tools}`, a hosted tool type. */
export function responsesToolChoice(v: unknown, path = "tool_choice"): ToolChoice {
  return openAiToolChoice(v, path, (o, type) => {
    if (type === "allowed_tools") {
      const names = array(o["tools"], `${path}.tools`).map((t, i) =>
        string(object(t, `${path}.tools[${i}]`)["name"], `${path}.tools[${i}].name`),
      );
      return { kind: "allowed", names, required: mode(o["mode"], `${path}.mode`) };
    }
    const name = typeof o["name"] === "string" ? ` ${JSON.stringify(o["name"])}` : "";
    return { kind: "forced", what: `a forced ${type} tool${name}` };
  });
}

/** Anthropic Messages: `{type: "auto" | "any" | "tool" | "none", name?, disable_parallel_tool_use?}`. */
export function anthropicToolChoice(v: unknown, path = "tool_choice"): ToolChoice {
  if (v == null) return { kind: "auto" };
  const o: Json = object(v, path);
  const type = string(o["type"], `${path}.type`);
  if (type === "auto") return { kind: "auto" };
  if (type === "none") return { kind: "none" };
  if (type === "any") return { kind: "forced", what: '{"type": "any"}' };
  if (type === "tool")
    return { kind: "forced", what: `the named tool ${JSON.stringify(string(o["name"], `${path}.name`))}` };
  return fail(`${path}.type`, `expected auto, any, tool or none, got ${JSON.stringify(type)}`);
}

function mode(v: unknown, path: string): boolean {
  if (v === "auto") return false;
  if (v === "required") return true;
  return fail(path, `expected "auto" or "required", got ${JSON.stringify(v)}`);
}
