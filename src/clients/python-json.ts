/**
 * JSON text as Python's `json.dumps(obj, ensure_ascii=False)` writes it (", " and ": "
 * separators), which is how chat templates serialize tool-call arguments given as objects.
 * JS numbers cannot tell `1` from `1.0`, so where the model's own text is available
 * (`rawJsonMember`) it is preferred over re-serializing.
 */

export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : pyNonFinite(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${JSON.stringify(k)}: ${pythonJsonDumps(v)}`,
    );
    return `{${parts.join(", ")}}`;
  }
  return JSON.stringify(String(value));
}

function pyNonFinite(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  return n > 0 ? "Infinity" : "-Infinity";
}

/**
 * The exact source text of a top-level member's value in a JSON object text, e.g. the
 * `arguments` of `{"name": "f", "arguments": {"x": 1.0}}` → `{"x": 1.0}`. Null when the text is
 * not an object or has no such member.
 */
export function rawJsonMember(text: string, key: string): string | null {
  let i = skipWs(text, 0);
  if (text[i] !== "{") return null;
  i++;
  while (i < text.length) {
    i = skipWs(text, i);
    if (text[i] === "}") return null;
    if (text[i] !== '"') return null;
    const keyEnd = scanString(text, i);
    if (keyEnd < 0) return null;
    let name: string;
    try {
      name = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return null;
    }
    i = skipWs(text, keyEnd);
    if (text[i] !== ":") return null;
    const valueStart = skipWs(text, i + 1);
    const valueEnd = scanValue(text, valueStart);
    if (valueEnd < 0) return null;
    if (name === key) return text.slice(valueStart, valueEnd);
    i = skipWs(text, valueEnd);
    if (text[i] === ",") i++;
    else return null;
  }
  return null;
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === " " || s[i] === "\n" || s[i] === "\r" || s[i] === "\t")) i++;
  return i;
}

/** Index just past the string literal starting at `i` (which is a quote), or -1. */
function scanString(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === '"') return j + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `i`, or -1 (brackets balanced, strings skipped). */
function scanValue(s: string, i: number): number {
  if (s[i] === '"') return scanString(s, i);
  if (s[i] === "{" || s[i] === "[") {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === '"') {
        j = scanString(s, j) - 1;
        if (j < 0) return -1;
      } else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < s.length && !",}] \n\r\t".includes(s[j])) j++;
  return j > i ? j : -1;
}
