/**
 * Syntax checks for README blocks that are not run: each returns null when the block is valid,
 * else a message whose line numbers are the README's own.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import type { Block } from "./markdown.ts";

/** `bash -n`: the block parses as a shell script. */
export function shellSyntax(b: Block): string | null {
  const r = spawnSync("bash", ["-n"], { input: b.body, encoding: "utf8" });
  return r.status === 0
    ? null
    : r.stderr.replace(/bash: line (\d+)/g, (_, n) => `line ${b.line + Number(n)}`);
}

/**
 * Every Python block at once, through one interpreter: compiled as a module, with top-level
 * `await` allowed (the README shows fragments of async agents). Returns block index → error.
 */
export function pythonSyntax(python: string, bs: readonly Block[]): Map<number, string> {
  const script = `
import ast, json, sys
out = {}
for i, (src, first) in enumerate(json.load(sys.stdin)):
    try:
        compile(src, "block", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT | ast.PyCF_ONLY_AST)
    except SyntaxError as e:
        out[i] = f"line {first + (e.lineno or 0)}: {e.msg}"
print(json.dumps(out))
`;
  const input = JSON.stringify(bs.map((b) => [b.body, b.line]));
  const r = spawnSync(python, ["-c", script], { input, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${python} could not check the Python blocks: ${r.stderr}`);
  return new Map(
    Object.entries(JSON.parse(r.stdout) as Record<string, string>).map(([k, v]) => [Number(k), v]),
  );
}

function tsErrors(source: string): readonly ts.DiagnosticWithLocation[] {
  const file = ts.createSourceFile("block.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  return (file as unknown as { parseDiagnostics: ts.DiagnosticWithLocation[] }).parseDiagnostics;
}

/**
 * The block parses as a TypeScript module, or as the members of an object literal (a README
 * shows one property of a taskset), or as a function body.
 */
export function typescriptSyntax(b: Block): string | null {
  const shapes: [string, string, number][] = [
    ["", "", 0],
    ["({\n", "\n});", 1],
    ["async () => {\n", "\n};", 1],
  ];
  let first: string | null = null;
  for (const [before, after, shift] of shapes) {
    const errors = tsErrors(`${before}${b.body}${after}`);
    if (errors.length === 0) return null;
    if (first === null) {
      const e = errors[0]!;
      const { line } = e.file.getLineAndCharacterOfPosition(e.start);
      first = `line ${b.line + 1 + line - shift}: ${ts.flattenDiagnosticMessageText(e.messageText, "\n")}`;
    }
  }
  return first;
}

/** JSON or JSON Lines. */
export function jsonSyntax(b: Block): string | null {
  try {
    JSON.parse(b.body);
    return null;
  } catch {
    for (const [i, l] of b.body.split("\n").entries()) {
      if (l.trim() === "") continue;
      try {
        JSON.parse(l);
      } catch (e) {
        return `line ${b.line + 1 + i}: ${(e as Error).message}`;
      }
    }
    return null;
  }
}

/**
 * The options envroll_miles declares (`OPTIONS` in rollout_fn.py) and the Miles options its
 * README documents (the first column of "Miles options"): the only flags a Miles command line in
 * the docs may use.
 */
export function milesOptions(root: string): { envroll: Set<string>; miles: Set<string> } {
  const src = readFileSync(join(root, "python/envroll_miles/src/envroll_miles/rollout_fn.py"), "utf8");
  const envroll = new Set([...src.matchAll(/\("(--envroll-[a-z-]+)",/g)].map((m) => m[1]!));
  const doc = readFileSync(join(root, "python/envroll_miles/README.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Miles options"));
  const miles = new Set<string>();
  for (const row of section.split("\n")) {
    const first = row.startsWith("|") ? row.split("|")[1]! : "";
    for (const m of first.matchAll(/`(--[a-z0-9-]+)`/g)) miles.add(m[1]!);
  }
  return { envroll, miles };
}
