/**
 * A node:test reporter that writes one line per test: outcome, where the test was declared
 * (file:line:column) and its name, tab-separated. scripts/test-isolation.mjs compares these lines
 * between files run alone and the same files run in groups.
 */
import { relative } from "node:path";

const ROOT = process.cwd();

export default async function* outcomes(source) {
  for await (const { type, data } of source) {
    if (type !== "test:pass" && type !== "test:fail") continue;
    const outcome =
      type === "test:fail"
        ? "fail"
        : data.skip !== undefined
          ? "skip"
          : data.todo !== undefined
            ? "todo"
            : "pass";
    const where = data.file ? `${relative(ROOT, data.file)}:${data.line}:${data.column}` : "?";
    // A failure's first line of error, for reading; the comparison ignores it.
    const why =
      type === "test:fail" ? String(data.details?.error?.cause ?? data.details?.error).split("\n")[0] : "";
    yield `${outcome}\t${where}\t${JSON.stringify(data.name)}\t${why}\n`;
  }
}
