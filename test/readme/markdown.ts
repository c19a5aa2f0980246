/**
 * The fenced code blocks of a README, each with the marker that says what the README test does
 * with it (see readme.test.ts for the convention).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export type Mark =
  | { kind: "run"; needsPython: string[] }
  | { kind: "save"; file: string }
  | { kind: "syntax"; why: string }
  | { kind: "skip"; why: string };

export interface Block {
  /** The README, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word, lower-cased (`sh`, `python`, `toml`, `""`). */
  lang: string;
  body: string;
  /** The marker comment above the fence, or null (the defaults apply). */
  mark: Mark | null;
}

const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

/** Parses `run [needs-python=a,b]`, `save FILE`, `syntax WHY`, `skip WHY`; throws naming the line. */
export function parseMark(text: string, where: string): Mark {
  const [kind = "", ...rest] = text.split(/\s+/);
  const arg = rest.join(" ");
  switch (kind) {
    case "run": {
      const needs = rest.find((r) => r.startsWith("needs-python="));
      const unknown = rest.filter((r) => r !== needs);
      if (unknown.length > 0)
        throw new Error(`${where}: readme-test run: unknown option(s) ${unknown.join(" ")}`);
      return { kind, needsPython: needs ? needs.slice("needs-python=".length).split(",") : [] };
    }
    case "save":
      if (!/^[\w.-]+(\/[\w.-]+)*$/.test(arg))
        throw new Error(`${where}: readme-test save needs a relative file name`);
      return { kind, file: arg };
    case "syntax":
    case "skip":
      if (arg === "") throw new Error(`${where}: readme-test ${kind} needs a reason`);
      return { kind, why: arg };
    default:
      throw new Error(
        `${where}: unknown readme-test marker "${kind}" (run, save FILE, syntax WHY, skip WHY)`,
      );
  }
}

/** The fenced blocks of one Markdown text (``` or ~~~ fences; indented code is not a block). */
export function blocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: code fence never closed`);
    let above = start - 1;
    while (above >= 0 && lines[above]!.trim() === "") above--;
    const marker = above >= 0 ? MARKER.exec(lines[above]!.trim()) : null;
    out.push({
      file,
      line: start + 1,
      lang: open[3]!.toLowerCase(),
      body: `${body.join("\n")}\n`,
      mark: marker ? parseMark(marker[1]!, `${file}:${above + 1}`) : null,
    });
  }
  return out;
}

/** Folders that hold no documentation of the repository itself. */
const SKIP_DIRS = new Set(["node_modules", ".git", ".venv", "dist", "outputs", ".scratch", "templates"]);

/** Every README.md of the repository (the scaffold templates `envroll init` writes are tested there). */
export function readmes(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (SKIP_DIRS.has(name) || name.startsWith(".")) continue;
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "README.md") found.push(relative(root, full));
    }
  };
  walk(root);
  return found;
}

export function readmeBlocks(root: string, file: string): Block[] {
  return blocks(file, readFileSync(join(root, file), "utf8"));
}
