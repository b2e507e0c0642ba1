// The HTML report's style sheet and script, inline in every page (no network, no external files).
#include "html_common.h"

namespace ppe::formatter::html {

const char* const kStyle = R"css(
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --hot: #e8590c; --asm: #f0a060;
  --link: #0969da; --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
html { scroll-padding-top: 3.2rem; }
body { margin: 0; color: var(--ink); background: #fff; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "Noto Sans", "DejaVu Sans", sans-serif; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
code { font-family: var(--mono); font-size: 0.92em; }
nav { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 0.2rem 1.1rem; align-items: center;
  padding: 0.55rem 1.5rem; background: #24292f; }
nav a { color: #e6edf3; font-size: 13px; }
nav a.code { font-family: var(--mono); color: #ffb086; }
nav .brand { color: #fff; font-weight: 700; letter-spacing: 0.04em; margin-right: 0.4rem; }
nav button { margin-left: auto; font: inherit; font-size: 12px; color: #e6edf3; background: transparent;
  border: 1px solid #57606a; border-radius: 6px; padding: 0.15rem 0.6rem; cursor: pointer; }
main { max-width: 1180px; margin: 0 auto; padding: 1.2rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: 0.3rem 0 0.1rem; font-weight: 600; }
h1 .image { font-family: var(--mono); }
h2 { font-size: 1.2rem; margin: 2.2rem 0 0.7rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line);
  font-weight: 600; }
h3 { font-size: 1.05rem; margin: 1.6rem 0 0.4rem; font-family: var(--mono); }
h4 { font-size: 0.95rem; margin: 1rem 0 0.35rem; font-family: var(--mono); font-weight: 600; word-break: break-all; }
.meta { font-family: system-ui, sans-serif; font-weight: 400; font-size: 0.85em; color: var(--muted); }
.sub, .note, figcaption { color: var(--muted); }
.note { font-size: 13px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(175px, 1fr)); gap: 0.7rem; margin: 1rem 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.8rem; background: var(--soft); }
.card .k { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
.card .v { font-size: 1.35rem; font-weight: 600; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.card .n { font-size: 12px; color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0.6rem 0; font-size: 13px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.warnings ul { margin: 0; padding-left: 1.2rem; color: #9a6700; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 0.22rem 0.6rem; text-align: left; vertical-align: top; }
thead th { border-bottom: 2px solid var(--line); font-weight: 600; white-space: nowrap; background: #fff; }
table.modules tbody tr:nth-child(even), table.sortable tbody tr:nth-child(even) { background: var(--soft); }
table.modules td, table.sortable td, table.objects td { border-bottom: 1px solid #eef1f4; }
tfoot td { color: var(--muted); border-top: 1px solid var(--line); }
.num { text-align: right; white-space: nowrap; }
td.name { font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \2195"; color: #aab3bd; font-size: 11px; }
table.sortable th[aria-sort=descending]::after { content: " \25BC"; color: var(--ink); }
table.sortable th[aria-sort=ascending]::after { content: " \25B2"; color: var(--ink); }
tr.object td { font-weight: 600; border-top: 1px solid var(--line); }
table.diff tr.significant td { font-weight: 600; }
.note.warning { color: #9a6700; }
tr.child td.name { padding-left: 1.8rem; }
tr.more td { color: var(--muted); padding-left: 1.8rem; font-size: 12px; }
.chart { margin: 0.4rem 0 1rem; }
.chart svg { width: 100%; max-width: 900px; height: auto; display: block; }
.chart .bar { fill: var(--hot); }
.chart a:hover .bar { fill: #c2410c; }
.chart .err { stroke: #1f2328; stroke-width: 1.4; fill: none; }
.chart .grid { stroke: #e6eaef; stroke-width: 1; }
.chart text { font-size: 12px; fill: var(--ink); }
.chart .label { text-anchor: end; font-family: var(--mono); }
.chart .tick { text-anchor: middle; fill: var(--muted); font-size: 11px; }
.chart .value { fill: var(--muted); font-size: 11px; }
.hot { font-size: 13px; margin: 0.2rem 0 0.6rem; }
article.module { margin-bottom: 2rem; }
table.src { width: 100%; font-family: var(--mono); font-size: 12.5px; line-height: 1.35; }
table.src thead th { font-family: system-ui, sans-serif; }
table.src td { padding: 0 0.5rem; }
table.src td.ln { color: #8c959f; text-align: right; width: 3.5em; }
table.src td.ln a { color: inherit; }
table.src th.bar, table.src td.bar { width: 130px; min-width: 130px; padding: 0 0.4rem; }
td.bar span { display: block; height: 0.72em; margin-top: 0.3em; border-radius: 2px; background: var(--hot); }
td.bar span.i { background: var(--asm); height: 0.5em; margin-top: 0.4em; }
td.code { white-space: pre; tab-size: 8; width: 100%; }
tr.nocode td.code { color: #8c959f; }
tr.hit td.num { font-weight: 600; }
tr.asm { background: #fafbfc; }
tr.asm td { font-size: 11.5px; color: #424a53; }
tr.asm td.code { padding-left: 2.6em; border-left: 2px solid var(--asm); }
tr.asm td.addr { color: #8c959f; text-align: right; }
tr:target td { box-shadow: inset 0 2px 0 var(--link), inset 0 -2px 0 var(--link); }
body.no-asm tr.asm { display: none; }
@media print {
  nav, #asm-toggle { display: none; }
  body { font-size: 10pt; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  td.code { white-space: pre-wrap; }
  h2, h3, h4 { break-after: avoid; }
  tr, .card, figure { break-inside: avoid; }
  a { color: inherit; }
}
)css";

const char* const kScript = R"js(
(function () {
  "use strict";
  function value(row, column) {
    var cell = row.cells[column];
    if (!cell) return "";
    var v = cell.getAttribute("data-v");
    return v === null ? cell.textContent.trim().toLowerCase() : parseFloat(v);
  }
  function sortBy(table, th, column) {
    var numeric = th.classList.contains("num");
    var current = th.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : numeric;
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, column), y = value(b, column);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.tabIndex = 0;
      th.title = "Sort by " + th.textContent.trim();
      th.addEventListener("click", function () { sortBy(table, th, column); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, column); }
      });
    });
  });
  var toggle = document.getElementById("asm-toggle");
  if (toggle && document.querySelector("tr.asm")) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var hide = document.body.classList.toggle("no-asm");
      toggle.textContent = hide ? "Show instructions" : "Hide instructions";
    });
  }
  document.body.setAttribute("data-ready", "1");
})();
)js";

} // namespace ppe::formatter::html
