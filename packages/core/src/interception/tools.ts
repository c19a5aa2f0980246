/**
 * Executing a task tool for the model. Every failure — malformed JSON, arguments that are not an
 * object, an unknown tool, a schema mismatch, a throwing tool — becomes the text of the tool
 * message, because a model's bad call is part of the episode it should learn from, not a crash.
 * `executeToolCall` also says whether the text is such a failure (MCP's `isError`).
 */
import type { HandlerContext, ToolDefinition } from "../task.ts";
import type { TaskData } from "../types.ts";

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

const failed = (content: string): ToolOutcome => ({ content, isError: true });

/** Thrown by a tool whose failure message is already what the model should read (no "Error: " prefix). */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

export async function executeToolCall<D extends TaskData>(
  tools: readonly ToolDefinition<D>[],
  name: string,
  rawArguments: string | Record<string, unknown>,
  ctx: HandlerContext<D>,
): Promise<ToolOutcome> {
  // A call the renderer could not parse (bad JSON, no name) arrives with an empty name and its
  // raw text as arguments: say so, rather than "unknown tool", so the model can correct itself.
  if (name === "")
    return failed(
      `Error: the tool call could not be parsed (no tool name found): ${String(rawArguments).slice(0, 200)}`,
    );
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    return failed(
      `Error: unknown tool "${name}" (available: ${tools.map((t) => t.name).join(", ") || "none"})`,
    );
  let args: unknown = rawArguments;
  if (typeof rawArguments === "string") {
    try {
      args = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
    } catch (e) {
      return failed(
        `Error: tool arguments are not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return failed("Error: tool arguments must be a JSON object");
  if (tool.argsSchema) {
    const parsed = tool.argsSchema.safeParse(args);
    if (!parsed.success)
      return failed(
        `Error: invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"} ${i.message}`).join("; ")}`,
      );
    args = parsed.data;
  }
  try {
    const out = await tool.execute(args, ctx);
    // A JS tool that returns nothing (typed string, but not checked at run time) gives "", not
    // an undefined tool message content.
    return { content: typeof out === "string" ? out : (JSON.stringify(out) ?? ""), isError: false };
  } catch (e) {
    if (e instanceof ToolFailure) return failed(e.message);
    return failed(`Error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The tool message text of one call (failures included). */
export async function runToolCall<D extends TaskData>(
  ...call: Parameters<typeof executeToolCall<D>>
): Promise<string> {
  return (await executeToolCall(...call)).content;
}
