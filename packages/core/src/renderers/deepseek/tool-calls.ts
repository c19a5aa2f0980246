/**
 * DeepSeek-V3 tool calls, found by their special-token ids (text that merely looks like them
 * never opens a call): `<｜tool▁calls▁begin｜>` opens the section, each call is
 * `<｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>`, and
 * `<｜tool▁calls▁end｜>` closes it. Content is the text before the section. A call without a
 * separator is `malformed_structure`; one cut off before its end is `unclosed_block`.
 */

import { pyJsonLoads } from "../../text/py-json.ts";
import { pyStrip } from "../../text/python-str.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { ParsedToolCall } from "../renderer.ts";

export const DEEPSEEK_IDS = {
  eos: 1,
  callsBegin: 128806,
  callsEnd: 128807,
  callBegin: 128808,
  callEnd: 128809,
  sep: 128814,
} as const;

export function parseDeepSeekToolCalls(
  tokenizer: Tokenizer,
  ids: readonly number[],
): { contentIds: number[]; toolCalls: ParsedToolCall[] } {
  const start = ids.indexOf(DEEPSEEK_IDS.callsBegin);
  if (start < 0) return { contentIds: ids.slice(), toolCalls: [] };
  let end = ids.indexOf(DEEPSEEK_IDS.callsEnd, start);
  if (end < 0) end = ids.length;
  const toolCalls: ParsedToolCall[] = [];
  for (let i = ids.indexOf(DEEPSEEK_IDS.callBegin, start); i >= 0 && i < end; ) {
    const close = ids.indexOf(DEEPSEEK_IDS.callEnd, i + 1);
    const stop = close < 0 || close > end ? end : close;
    const body = ids.slice(i + 1, stop);
    const span: [number, number] = [i, close < 0 || close > end ? end : close + 1];
    const sep = body.indexOf(DEEPSEEK_IDS.sep);
    const raw = pyStrip(tokenizer.decode(sep >= 0 ? body.slice(sep + 1) : body));
    if (close < 0 || close > end) {
      toolCalls.push({
        raw,
        name: null,
        arguments: null,
        tokenSpan: span,
        status: "unclosed_block",
        id: null,
      });
      break;
    }
    if (sep < 0) {
      toolCalls.push({
        raw,
        name: null,
        arguments: null,
        tokenSpan: span,
        status: "malformed_structure",
        id: null,
      });
    } else {
      const nl = raw.indexOf("\n");
      const name = pyStrip(nl < 0 ? raw : raw.slice(0, nl));
      const argsText = unfence(nl < 0 ? "" : raw.slice(nl + 1));
      let args: unknown = null;
      let ok = true;
      try {
        args = pyJsonLoads(argsText);
      } catch {
        ok = false;
      }
      toolCalls.push({
        raw,
        name: name || null,
        arguments: ok ? args : argsText,
        tokenSpan: span,
        status: !name ? "missing_name" : ok ? "ok" : "invalid_json",
        id: null,
      });
    }
    i = ids.indexOf(DEEPSEEK_IDS.callBegin, close + 1);
  }
  return { contentIds: ids.slice(0, start), toolCalls };
}

/** The JSON inside a ```json fence (the fence is optional). */
function unfence(text: string): string {
  let t = pyStrip(text);
  if (t.startsWith("```json")) t = t.slice(7);
  else if (t.startsWith("```")) t = t.slice(3);
  if (t.endsWith("```")) t = t.slice(0, -3);
  return pyStrip(t);
}
