/**
 * One trace as an expandable `<details>` block: the conversation, rewards and metrics, errors,
 * and the record itself as JSON. Token arrays are summarized, not embedded: they are the bulk
 * of a trace, unreadable in a page, and still complete in `traces.jsonl`.
 */
import type { TraceRecord } from "../../trace/record.ts";
import { contentText, type Message } from "../../types.ts";
import { slimRecord } from "../trace-set.ts";
import { esc, num } from "./html.ts";

export function traceAnchor(t: Pick<TraceRecord, "task_index" | "rollout_index">): string {
  return `t-${t.task_index}-${t.rollout_index}`;
}

/** What the trace JSON view shows: the record without token arrays (sizes kept). */
export function slimTrace(t: TraceRecord): unknown {
  const slim = slimRecord(t);
  return {
    ...slim,
    branches: slim.branches.map((b) => {
      const { token_ids: _t, sampled_mask: _m, logprobs: _l, weight_versions: _w, ...rest } = b;
      return rest;
    }),
  };
}

function messageHtml(m: Message, sampled: boolean): string {
  const parts: string[] = [];
  if (m.role === "assistant" && m.reasoning_content) {
    parts.push(`<div class="reasoning">${esc(m.reasoning_content)}</div>`);
  }
  parts.push(`<div class="content">${esc(contentText(m.content ?? ""))}</div>`);
  if (m.role === "assistant" && m.tool_calls?.length) {
    for (const c of m.tool_calls) {
      parts.push(`<div class="toolcall">→ ${esc(c.name)}(${esc(c.arguments)})</div>`);
    }
  }
  const tag = m.role === "tool" ? ` <span class="muted">${esc(m.tool_call_id)}</span>` : "";
  return `<div class="msg ${esc(m.role)}${sampled ? " sampled" : ""}"><div class="role">${esc(m.role)}${sampled ? " · sampled" : ""}${tag}</div>${parts.join("")}</div>`;
}

function kvTable(title: string, rec: Record<string, number>): string {
  const rows = Object.entries(rec)
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td class="num">${num(v, 4)}</td></tr>`)
    .join("");
  return rows ? `<table class="kv"><tr><th colspan="2">${esc(title)}</th></tr>${rows}</table>` : "";
}

export function traceDetails(t: TraceRecord): string {
  const errored = t.errors.length > 0;
  const head =
    `task ${t.task_index} · rollout ${t.rollout_index} · reward <b>${num(t.reward)}</b>` +
    ` · stop ${esc(t.stop_condition ?? "none")} · ${t.num_turns} turn(s)` +
    (t.is_truncated ? ` · <span class="warn">truncated</span>` : "") +
    (errored ? ` · <span class="err">${esc(t.errors[t.errors.length - 1]!.type)}</span>` : "") +
    (t.attempts > 0 ? ` · ${t.attempts} retried attempt(s)` : "");
  // A compacted or forked trace has several root-to-leaf paths; show each one as it was sent.
  const messages =
    t.branches.length > 1
      ? t.branches
          .map(
            (b, i) =>
              `<div class="branch">branch ${i + 1} of ${t.branches.length}</div>` +
              b.node_indices
                .map((k) => (t.nodes[k] ? messageHtml(t.nodes[k].message, t.nodes[k].sampled) : ""))
                .join(""),
          )
          .join("")
      : t.nodes.map((n) => messageHtml(n.message, n.sampled)).join("");
  const errors = t.errors
    .map(
      (e) =>
        `<div class="error"><b>${esc(e.type)}</b>: ${esc(e.message)}${e.traceback ? `<pre>${esc(e.traceback)}</pre>` : ""}</div>`,
    )
    .join("");
  return (
    `<details class="trace${errored ? " errored" : ""}" id="${traceAnchor(t)}"><summary>${head}</summary>` +
    `<div class="trace-body"><div class="conversation">${messages || `<p class="muted">No messages.</p>`}</div>` +
    `<div class="side">${kvTable("rewards (weighted)", t.rewards)}${kvTable("metrics", t.metrics)}${errors}</div></div>` +
    `<details class="raw"><summary>trace JSON</summary><pre>${esc(JSON.stringify(slimTrace(t), null, 2))}</pre></details>` +
    `</details>`
  );
}
