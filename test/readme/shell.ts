/**
 * Reading the shell blocks of a README: which commands are set-up or suite commands (never run
 * by the README test), which are `npx envroll` commands, and the words of a command.
 */

/** Commands a reader runs once to set up, or the suites themselves: excluded from every check but syntax. */
const SETUP =
  /^(npm (ci|install|test|run (test|e2e|bench|fixtures|build))\b|pip3? install\b|apt(-get)? install\b|(python3? -m )?pytest\b)/;

/** The line without its trailing `# comment` (a `#` outside quotes that starts a word). */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** The block's commands: comments cut, `\`-continued lines joined, blank lines dropped. */
export function logicalLines(body: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (const raw of body.split("\n")) {
    const line = stripComment(raw).trimEnd();
    if (line.endsWith("\\")) {
      cur += `${line.slice(0, -1)} `;
      continue;
    }
    cur += line;
    if (cur.trim() !== "") out.push(cur.trim());
    cur = "";
  }
  return out;
}

/** Splits at `&&` outside quotes. */
export function splitAnd(line: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "&" && line[i + 1] === "&") {
      parts.push(line.slice(start, i).trim());
      start = i + 2;
      i++;
    }
  }
  parts.push(line.slice(start).trim());
  return parts.filter((p) => p !== "");
}

export const isSetup = (command: string): boolean =>
  SETUP.test(command.replace(/^([A-Za-z_]\w*=\S*\s+)+/, ""));

/**
 * The words of one command as the shell would split them (quotes, backslashes, a trailing
 * comment); `|` is kept as a word of its own so a pipeline's stages can be told apart.
 */
export function words(command: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed ${c} in: ${command}`);
      cur = (cur ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (c === "\\" && i + 1 < command.length) {
      cur = (cur ?? "") + command[++i];
    } else if (/\s/.test(c)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else if (c === "#" && cur === null) break;
    else if (c === "|" && cur === null) out.push("|");
    else cur = (cur ?? "") + c;
  }
  if (cur !== null) out.push(cur);
  return out;
}

/** The stages of a pipeline, each as words. */
export function stages(command: string): string[][] {
  const out: string[][] = [[]];
  for (const w of words(command)) {
    if (w === "|") out.push([]);
    else out[out.length - 1]!.push(w);
  }
  return out.filter((s) => s.length > 0);
}

/** `npx envroll …` (after any `VAR=value` prefixes): the words after `envroll`, else null. */
export function envrollArgs(stage: readonly string[]): string[] | null {
  let i = 0;
  while (i < stage.length && /^[A-Za-z_]\w*=/.test(stage[i]!)) i++;
  return stage[i] === "npx" && stage[i + 1] === "envroll" ? stage.slice(i + 2) : null;
}

/** Stages that only feed an envroll command its input. */
const FEEDERS = new Set(["echo", "printf", "cat"]);

/** True when every stage of the command is `npx envroll …` or feeds one its stdin. */
export function isEnvrollCommand(command: string): boolean {
  const s = stages(command);
  return (
    s.some((st) => envrollArgs(st) !== null) &&
    s.every((st) => envrollArgs(st) !== null || FEEDERS.has(st[0]!))
  );
}

/** The block's commands that are neither set-up nor suite commands. */
export function checkedCommands(body: string): string[] {
  return logicalLines(body).flatMap((l) => splitAnd(l).filter((c) => !isSetup(c)));
}
