/**
 * Judge prompt templates: `{placeholder}` filling and the fence that keeps pasted text inside its
 * block. Filling is one pass over the template and touches only the judge's own placeholders, so a
 * literal brace in a custom prompt (a JSON example) is safe, a value containing "{answer}" is not
 * expanded again, and an unknown placeholder stays as written (Verifiers HEAD; 0.2.0's
 * `str.format` raised on both).
 */
import { escapeRegExp } from "../text/regexp.ts";

export function fillTemplate(template: string, fields: Readonly<Record<string, string>>): string {
  const names = Object.keys(fields);
  if (names.length === 0) return template;
  const placeholder = new RegExp(`\\{(${names.map(escapeRegExp).join("|")})\\}`, "g");
  return template.replace(placeholder, (_, name: string) => fields[name]!);
}

/** A Markdown fence one backtick longer than the longest backtick run in `text` (at least 3). */
export function fenceFor(text: string): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(longest + 1);
}

/**
 * The inverse of `fillTemplate`: a pattern that matches a filled template and captures each
 * placeholder's value by name (a repeated placeholder must repeat its value). Values are matched
 * lazily, so text after a placeholder anchors where the value ends. Used to read a built-in
 * judge prompt back (the built-in engine's judge policy).
 */
export function templatePattern(template: string, names: readonly string[]): RegExp {
  const placeholder = new RegExp(`\\{(${names.map(escapeRegExp).join("|")})\\}`, "g");
  const seen = new Set<string>();
  let source = "";
  let at = 0;
  for (const m of template.matchAll(placeholder)) {
    source += escapeRegExp(template.slice(at, m.index));
    const name = m[1]!;
    source += seen.has(name) ? `\\k<${name}>` : `(?<${name}>[\\s\\S]*?)`;
    seen.add(name);
    at = m.index + m[0].length;
  }
  return new RegExp(`^${source}${escapeRegExp(template.slice(at))}$`);
}
