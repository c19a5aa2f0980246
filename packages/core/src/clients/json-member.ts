/**
 * The exact source text of one member of a JSON object text. Tool-call arguments are taken
 * from the model's own text this way, because re-serializing parsed JSON in JavaScript cannot
 * reproduce every spelling (`1.0` vs `1`, escapes, key order quirks) the model produced.
 */

export function rawJsonMember(text: string, key: string): string | null {
  let i = skipWs(text, 0);
  if (text[i] !== "{") return null;
  i++;
  // A duplicated key is taken from its LAST occurrence, as Python's json.loads (and so the
  // parser that produced the call's arguments) does; the first one would run the tool with
  // arguments other than the parsed ones.
  let found: string | null = null;
  while (i < text.length) {
    i = skipWs(text, i);
    if (text[i] === "}") return found;
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
    if (name === key) found = text.slice(valueStart, valueEnd);
    i = skipWs(text, valueEnd);
    if (text[i] === ",") i++;
    else if (text[i] !== "}") return null; // `}` ends the object at the top of the loop
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
  while (j < s.length && !",}] \n\r\t".includes(s[j]!)) j++;
  return j > i ? j : -1;
}
