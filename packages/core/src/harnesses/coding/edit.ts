/**
 * V1's `edit` tool: replace the one occurrence of `old_str` in a file of the rollout's workdir
 * with `new_str`. A relative path resolves against the workdir; a path the runtime refuses (one
 * that leaves the workdir) cannot be read. Every failure is one `error: …` line naming the
 * path as given, in V1's wording, and success is `Edited <path>`.
 */
import { z } from "zod";
import { ToolFailure } from "../../interception/tools.ts";
import type { ToolDefinition } from "../../task.ts";
import type { TaskData } from "../../types.ts";
import { jsonSchema } from "./schema.ts";

const EditArgs = z.object({
  path: z.string().describe("File path (relative to the working directory, or absolute)."),
  old_str: z.string().describe("The exact text to replace; it must occur exactly once."),
  new_str: z.string().describe("The replacement text."),
});

const utf8 = new TextDecoder("utf-8", { fatal: true });
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const notFound = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === "ENOENT";

/** Non-overlapping occurrences, as Python's `str.count`. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

export const editTool: ToolDefinition<TaskData> = {
  name: "edit",
  description: "Replace a string in a file. old_str must appear exactly once in the file.",
  parameters: jsonSchema(EditArgs),
  async execute(args: { path?: unknown; old_str?: unknown; new_str?: unknown }, ctx) {
    const { path, old_str: oldStr, new_str: newStr } = args;
    if (typeof path !== "string" || path === "") throw new ToolFailure("error: 'path' is required");
    if (typeof oldStr !== "string" || typeof newStr !== "string")
      throw new ToolFailure("error: 'old_str' and 'new_str' must be strings");
    // "" occurs everywhere: it would insert rather than replace.
    if (oldStr === "") throw new ToolFailure("error: 'old_str' must be a non-empty string");
    const runtime = ctx.runtime;
    if (!runtime) throw new ToolFailure("error: edit needs the rollout's runtime");
    let text: string;
    try {
      text = utf8.decode(await runtime.readFile(path));
    } catch (e) {
      if (notFound(e)) throw new ToolFailure(`error: ${path} not found`);
      throw new ToolFailure(`error: could not read ${path}: ${message(e)}`);
    }
    const n = occurrences(text, oldStr);
    if (n !== 1) throw new ToolFailure(`error: old_str must appear exactly once in ${path} (found ${n})`);
    try {
      await runtime.writeFile(
        path,
        text.replace(oldStr, () => newStr),
      );
    } catch (e) {
      throw new ToolFailure(`error: could not write ${path}: ${message(e)}`);
    }
    return `Edited ${path}`;
  },
};
