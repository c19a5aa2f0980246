/**
 * Responses `tools[]` → the functions the model sees. A `function` tool is itself. A
 * `namespace` tool (Codex puts each MCP server's tools in one, `mcp__<server>`) contributes its
 * member functions as `<namespace>__<name>`, the spelling MCP clients give such tools, and the
 * answer maps a call back to `{namespace, name}`. A `custom` (freeform) tool becomes a function
 * of one string, `input`; its call goes back as a `custom_tool_call` carrying that text. Hosted
 * tools (web search, file search, code interpreter, …) run on OpenAI's servers, which are not
 * here: they are left out of the prompt and named on the trace, or refused when the
 * environment says so.
 */
import type { Tool } from "../../../types.ts";
import type { WireTool } from "../dialect.ts";
import { array, fail, functionTool, type Json, object, optionalString, string } from "../fields.ts";

/** Tool types the Responses API runs server-side. */
export const HOSTED_TOOLS = new Set([
  "web_search",
  "web_search_preview",
  "web_search_2025_08_26",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer_use_preview",
  "computer_use",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
  "tool_search",
]);

export interface ParsedTools {
  tools: Tool[];
  wire: Map<string, WireTool>;
  dropped: string[];
}

export const CUSTOM_INPUT = "input";

export function namespacedName(namespace: string, name: string): string {
  return `${namespace}__${name}`;
}

function fnTool(raw: Json, path: string): Tool {
  const out = functionTool(raw["name"], raw["description"], raw["parameters"], path);
  if (typeof raw["strict"] === "boolean") out.strict = raw["strict"];
  return out;
}

function customTool(raw: Json, path: string): Tool {
  const name = string(raw["name"], `${path}.name`);
  const format = raw["format"] == null ? null : object(raw["format"], `${path}.format`);
  const grammar =
    format && format["type"] === "grammar"
      ? `\nInput grammar (${optionalString(format["syntax"], `${path}.format.syntax`) ?? "?"}):\n${string(format["definition"], `${path}.format.definition`)}`
      : "";
  return {
    name,
    description: `${optionalString(raw["description"], `${path}.description`) ?? ""}${grammar}`,
    parameters: {
      type: "object",
      properties: { [CUSTOM_INPUT]: { type: "string", description: "the tool's freeform input" } },
      required: [CUSTOM_INPUT],
    },
  };
}

/** A list of tool definitions and where it sits in the request (for error paths). */
export interface ToolSource {
  raw: unknown;
  path: string;
}

/**
 * The request's `tools[]` and any `additional_tools` input items' tools, in order, as one list:
 * the chat template renders the tools once, ahead of the conversation, which is where they sit
 * when every `additional_tools` item precedes the model's first turn (parse.ts refuses one later).
 */
export function parseResponsesTools(sources: readonly ToolSource[], refuseHosted: boolean): ParsedTools {
  const out: ParsedTools = { tools: [], wire: new Map(), dropped: [] };
  for (const { raw, path } of sources) if (raw != null) parseToolList(raw, path, refuseHosted, out);
  return out;
}

function parseToolList(raw: unknown, listPath: string, refuseHosted: boolean, out: ParsedTools): void {
  array(raw, listPath).forEach((t, i) => {
    const path = `${listPath}[${i}]`;
    const tool = object(t, path);
    const type = tool["type"];
    if (type === "function") out.tools.push(fnTool(tool, path));
    else if (type === "custom") {
      const custom = customTool(tool, path);
      out.tools.push(custom);
      out.wire.set(custom.name, { name: custom.name, custom: true });
    } else if (type === "namespace") {
      const namespace = string(tool["name"], `${path}.name`);
      array(tool["tools"], `${path}.tools`).forEach((m, j) => {
        const at = `${path}.tools[${j}]`;
        const member = object(m, at);
        if (member["type"] !== "function" && member["type"] !== "custom")
          fail(
            `${at}.type`,
            `a namespace holds function or custom tools, got ${JSON.stringify(member["type"])}`,
          );
        const inner = member["type"] === "custom" ? customTool(member, at) : fnTool(member, at);
        const name = inner.name;
        inner.name = namespacedName(namespace, name);
        out.tools.push(inner);
        out.wire.set(inner.name, {
          name,
          namespace,
          ...(member["type"] === "custom" ? { custom: true } : {}),
        });
      });
    } else if (typeof type === "string" && HOSTED_TOOLS.has(type)) {
      if (refuseHosted)
        fail(
          `${path}.type`,
          `the hosted tool ${JSON.stringify(type)} runs on OpenAI's servers, which this environment does not have`,
        );
      out.dropped.push(type);
    } else fail(`${path}.type`, `unsupported tool type ${JSON.stringify(type)}`);
  });
}
