/** The report's inline stylesheet and its one small script (opening a trace linked by #hash). */

export const REPORT_CSS = `
:root{--fg:#1d2330;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#fff;--accent:#2563eb;--ok:#16a34a;--mid:#ca8a04;--bad:#dc2626}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:20px 28px;background:#111827;color:#f9fafb}
header h1{margin:0 0 4px;font-size:20px}
header .meta{color:#cbd5e1;font-size:13px}
main{padding:20px 28px;max-width:1280px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:0 0 18px}
h2{font-size:16px;margin:0 0 12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:12px}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.card .v{font-size:22px;font-weight:600}
.card .l{color:var(--muted);font-size:12px}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:18px}
@media (max-width:900px){.grid2{grid-template-columns:1fr}}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{font-weight:600;color:#374151;background:#f3f4f6}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}
.chart{width:100%;max-width:680px;height:auto}
.chart .bar{fill:var(--accent)} .chart .bar.neg{fill:var(--bad)}
.chart text{font-size:11px;fill:#374151}
.chart .count,.chart .tick,.chart .axis-label{text-anchor:middle}
.chart .key{text-anchor:end} .chart .axis{stroke:#9ca3af}
.chip{display:inline-block;min-width:42px;margin:1px 2px;padding:1px 6px;border-radius:10px;font-size:12px;text-align:center;text-decoration:none;color:#fff;font-variant-numeric:tabular-nums}
.chip.c-ok{background:var(--ok)} .chip.c-low{background:var(--mid)} .chip.c-err{background:var(--bad)} .chip.c-missing{background:#9ca3af}
table.pass{max-width:420px}
.prompt{max-width:420px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.err{color:var(--bad);font-weight:600} .warn{color:var(--mid);font-weight:600}
details.trace{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}
details.trace.errored{border-color:#fecaca}
details.trace>summary{cursor:pointer;padding:4px 0}
details.trace:target{outline:2px solid var(--accent)}
.trace-body{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,1fr);gap:14px;margin:8px 0}
.msg{border-left:3px solid var(--line);padding:4px 10px;margin:6px 0;background:#fafafa}
.msg.user{border-color:#60a5fa} .msg.system{border-color:#a78bfa} .msg.assistant{border-color:var(--ok)} .msg.tool{border-color:var(--mid)}
.msg .role{font-size:11px;text-transform:uppercase;color:var(--muted);letter-spacing:.04em}
.msg .role span{text-transform:none;letter-spacing:0}
.branch{font-size:12px;font-weight:600;color:#374151;margin:10px 0 2px;border-bottom:1px dashed var(--line)}
.msg .content,.msg .reasoning,.msg .toolcall{white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
.msg .reasoning{color:var(--muted);font-style:italic;margin-bottom:4px}
.error{background:#fef2f2;border:1px solid #fecaca;border-radius:4px;padding:6px 8px;margin:6px 0;white-space:pre-wrap;word-break:break-word}
pre{white-space:pre-wrap;word-break:break-word;font-size:12px;background:#f3f4f6;padding:8px;border-radius:4px;max-height:480px;overflow:auto}
table.kv{margin-bottom:8px} table.kv th{font-size:12px}
`;

/** Opens the `<details>` a link points at, so each table row leads straight to its trace. */
export const REPORT_JS = `(function(){
function openHash(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;var el=document.getElementById(id);if(el&&el.tagName==="DETAILS"){el.open=true;el.scrollIntoView({block:"start"});}}
window.addEventListener("hashchange",openHash);openHash();
})();`;
