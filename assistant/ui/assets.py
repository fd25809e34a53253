"""The web UI's look and its small browser scripts (Gradio theme, CSS, JavaScript).

The scripts only turn clicks into Gradio events: a citation chip or a person's name in the chat
(`BRIDGE_JS`, attached to the source panel), the two-step remove buttons of the document list
(`DOCS_JS`) and a cell of the people table (`PEOPLE_JS`, which also sorts the table by a column in
the browser). Colours come from Gradio's CSS variables, so the dark theme works too.

Left out: web fonts (the system font stack is used, nothing is fetched) and a mobile-specific layout.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

BRAND_HTML = (
    '<div class="cw-brand"><div class="cw-logo">❝</div><div><div class="cw-name">citewise</div>'
    '<div class="cw-tagline">Answers from your own documents — every claim shows its quote.</div></div></div>'
)

CHAT_PLACEHOLDER = (
    "<div class='cw-welcome'><h2>Ask about your documents</h2>"
    "<p>Answers quote your files word for word. Click a number to see the passage in its document.</p></div>"
)

# Clicks on `a.cw-chip` / `a.cw-person` anywhere in the page become a `click` event of the source
# panel carrying the link (`{ref: "#cw-cite-..."}`). Bound once per page, whatever re-renders.
BRIDGE_JS = """
window.__cwOpen = trigger;
if (!window.__cwBound) {
  window.__cwBound = true;
  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a.cw-chip, a.cw-person');
    if (!a) return;
    e.preventDefault();
    document.querySelectorAll('.cw-active').forEach((x) => x.classList.remove('cw-active'));
    a.classList.add('cw-active');
    const card = a.closest('#source-panel') && document.querySelector('#source-panel [data-person-ref]');
    window.__cwOpen('click', {ref: a.getAttribute('href') || '', back: card ? card.dataset.personRef : ''});
  });
}
watch('value', () => {
  const m = element.querySelector('mark.cw-quote');
  if (m) m.scrollIntoView({block: 'center'});
  const p = element.querySelector('.cw-panel');
  if (p && !p.classList.contains('cw-panel-empty') && window.innerWidth < 900) p.scrollIntoView({block: 'start'});
});
"""

DOCS_JS = """
element.addEventListener('click', (e) => {
  const b = e.target.closest && e.target.closest('button.cw-remove');
  if (!b || b.disabled) return;
  e.preventDefault();
  if (!b.classList.contains('cw-armed')) {
    element.querySelectorAll('button.cw-armed').forEach((x) => { x.classList.remove('cw-armed'); x.textContent = 'Remove'; });
    b.classList.add('cw-armed');
    b.textContent = 'Confirm remove';
    return;
  }
  b.disabled = true;
  b.textContent = 'Removing…';
  trigger('click', {remove: b.dataset.key});
});
"""

# The people table: a heading sorts its rows in the browser (numbers in order, "not stated" always
# last); a click (or Enter) on a cell becomes a `click` event carrying its (row, col) in the built table.
PEOPLE_JS = """
const order = (a, b) => a.localeCompare(b, undefined, {numeric: true, sensitivity: 'base'});
function sortBy(button) {
  const th = button.closest('th');
  const table = th.closest('table');
  const k = Number(button.dataset.col);
  const asc = th.getAttribute('aria-sort') !== 'ascending';
  table.querySelectorAll('thead th').forEach((x) => x.setAttribute('aria-sort', 'none'));
  th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
  const body = table.tBodies[0];
  const key = (tr) => tr.cells[k].dataset.sort || '';
  [...body.rows].sort((r1, r2) => {
    const a = key(r1), b = key(r2);
    if (!a !== !b) return a ? -1 : 1;
    return asc ? order(a, b) : order(b, a);
  }).forEach((tr) => body.appendChild(tr));
}
function openCell(td) {
  element.querySelectorAll('td.cw-active').forEach((x) => x.classList.remove('cw-active'));
  td.classList.add('cw-active');
  trigger('click', {row: Number(td.dataset.row), col: Number(td.dataset.col)});
}
element.addEventListener('click', (e) => {
  const sort = e.target.closest && e.target.closest('button.cw-sort');
  if (sort) { sortBy(sort); return; }
  const td = e.target.closest && e.target.closest('td.cw-cell');
  if (td) openCell(td);
});
element.addEventListener('keydown', (e) => {
  const td = (e.key === 'Enter' || e.key === ' ') && e.target.closest && e.target.closest('td.cw-cell');
  if (!td) return;
  e.preventDefault();
  openCell(td);
});
"""

PEOPLE_PANEL_JS = """
watch('value', () => {
  const m = element.querySelector('mark.cw-quote');
  if (m) m.scrollIntoView({block: 'nearest'});
});
"""

CSS = """
.gradio-container { max-width: 1320px !important; margin: 0 auto !important; }
footer { display: none !important; }
#cw-header { align-items: center; justify-content: space-between; padding: 4px 2px 2px; gap: 8px; }
.cw-brand { display: flex; align-items: center; gap: 12px; }
.cw-logo { width: 42px; height: 42px; border-radius: 12px; display: grid; place-items: center; font-size: 28px;
  line-height: 1; color: #fff; background: linear-gradient(135deg, #4f46e5, #7c3aed); font-family: Georgia, serif;
  padding-top: 10px; box-sizing: border-box; box-shadow: 0 4px 14px rgba(79, 70, 229, .35); }
.cw-name { font-size: 22px; font-weight: 700; letter-spacing: -.02em; color: var(--body-text-color); }
.cw-tagline { font-size: 13px; color: var(--body-text-color-subdued); }
.cw-stats { display: flex; gap: 8px; justify-content: flex-end; flex-wrap: wrap; }
.cw-stats span { font-size: 12px; padding: 4px 10px; border-radius: 999px; background: var(--block-background-fill);
  border: 1px solid var(--border-color-primary); color: var(--body-text-color-subdued); white-space: nowrap; }
.cw-welcome { text-align: center; padding: 24px; color: var(--body-text-color-subdued); }
.cw-welcome h2 { color: var(--body-text-color); margin-bottom: 6px; font-size: 20px; }

/* answers */
.cw-answer { line-height: 1.6; }
.cw-answer p { margin: 0 0 .45em; }
.cw-answer ul { margin: .2em 0 .5em 1.1em; padding: 0; }
.cw-answer li { margin: .25em 0; }
.cw-abstained > p:first-child { padding: 8px 12px; border-radius: 8px; background: var(--background-fill-secondary);
  border-left: 3px solid #f59e0b; }
.cw-chips { white-space: nowrap; }
a.cw-chip { display: inline-flex; align-items: center; justify-content: center; min-width: 1.45em; height: 1.45em;
  padding: 0 .35em; margin-left: .2em; border-radius: .45em; font-size: .78em; font-weight: 650; line-height: 1;
  text-decoration: none !important; vertical-align: .12em; cursor: pointer; color: #4338ca !important;
  background: #e0e7ff; border: 1px solid #c7d2fe; transition: background .12s, transform .12s; }
a.cw-chip:hover { background: #c7d2fe; transform: translateY(-1px); }
a.cw-chip.cw-active { background: #4f46e5; color: #fff !important; border-color: #4f46e5; }
a.cw-chip.cw-related { color: #92400e !important; background: #fef3c7; border-color: #fde68a; }
.dark a.cw-chip { background: #312e81; color: #e0e7ff !important; border-color: #4338ca; }
.dark a.cw-chip.cw-related { background: #78350f; color: #fef3c7 !important; border-color: #92400e; }
.cw-sources { margin-top: .7em; padding-top: .55em; border-top: 1px solid var(--border-color-primary); }
.cw-sources-title { font-size: .72em; font-weight: 700; text-transform: uppercase; letter-spacing: .06em;
  color: var(--body-text-color-subdued); margin-bottom: .3em; }
.cw-sources ol { list-style: none; margin: 0 !important; padding: 0 !important; }
details.cw-sources summary { cursor: pointer; margin-bottom: 0; }
details.cw-sources[open] summary { margin-bottom: .3em; }
.cw-sources li { display: flex; flex-wrap: wrap; align-items: baseline; gap: .1em .5em; font-size: .86em; margin: .3em 0; }
.cw-sources li a.cw-chip { margin-left: 0; }
.cw-src-where { font-weight: 600; color: var(--body-text-color); }
.cw-src-quote { color: var(--body-text-color-subdued); font-style: italic; flex-basis: 100%; padding-left: 2em; }
.cw-sources-related { border: 1px dashed #f59e0b; border-radius: 10px; padding: .5em .75em; background: rgba(254, 243, 199, .25); }
.cw-sources-related .cw-sources-title { color: #b45309; }
.cw-notes p { font-size: .82em; color: var(--body-text-color-subdued); margin: .2em 0; }
.cw-people { display: grid; gap: .55em; margin: .3em 0 .4em; }
.cw-person-card { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: .5em .75em;
  background: var(--background-fill-secondary); }
.cw-person-card ul { margin: .2em 0 0 1.1em !important; }
.cw-person-head { display: flex; align-items: baseline; gap: .6em; flex-wrap: wrap; }
.cw-person-docs { font-size: .78em; color: var(--body-text-color-subdued); }
.cw-person-plain { font-weight: 700; }
.cw-fact { background: #fde68a; color: inherit; padding: 0 .1em; border-radius: 2px; font-weight: 600; }
.cw-confidence { font-size: .8em; margin: .25em 0; color: var(--body-text-color-subdued); }
.cw-conf-very-likely, .cw-conf-likely { color: #15803d; }
.cw-conf-uncertain { color: #b45309; }
.cw-conf-unlikely { color: #b91c1c; }
.cw-resolved { font-size: .8em; color: var(--body-text-color-subdued); margin-bottom: .35em; font-style: italic; }
a.cw-person { font-weight: 700; text-decoration: none !important; color: var(--color-accent) !important; cursor: pointer; }
a.cw-person:hover { text-decoration: underline !important; }
a.cw-back { display: inline-block; font-size: 12.5px; font-weight: 600; margin-bottom: 10px; }
.cw-status { display: flex; align-items: center; gap: .6em; color: var(--body-text-color-subdued); font-style: italic; }
.cw-dots { display: inline-flex; gap: 3px; }
.cw-dots i { width: 6px; height: 6px; border-radius: 50%; background: var(--color-accent); animation: cw-b 1s infinite ease-in-out; }
.cw-dots i:nth-child(2) { animation-delay: .15s; } .cw-dots i:nth-child(3) { animation-delay: .3s; }
@keyframes cw-b { 0%, 80%, 100% { opacity: .25; transform: scale(.8); } 40% { opacity: 1; transform: scale(1); } }
.cw-caret { display: inline-block; width: 7px; height: 1em; background: var(--color-accent); vertical-align: -2px;
  animation: cw-blink .8s steps(1) infinite; }
@keyframes cw-blink { 50% { opacity: 0; } }

/* source panel */
#source-panel { position: sticky; top: 12px; }
.cw-panel { border: 1px solid var(--border-color-primary); border-radius: 14px; background: var(--block-background-fill);
  padding: 16px 18px; box-shadow: 0 1px 3px rgba(0, 0, 0, .05); max-height: 640px; overflow: auto; }
.cw-panel-empty { text-align: center; color: var(--body-text-color-subdued); padding: 40px 24px; }
.cw-panel-empty h3, .cw-empty h3 { margin: 6px 0; color: var(--body-text-color); }
.cw-panel-icon { font-size: 34px; font-family: Georgia, serif; color: var(--color-accent); line-height: 1; }
.cw-panel-head { display: flex; gap: 12px; align-items: center; margin-bottom: 10px; }
.cw-badge { flex: none; width: 30px; height: 30px; border-radius: 9px; display: grid; place-items: center;
  background: #4f46e5; color: #fff; font-weight: 700; }
.cw-badge-person { background: linear-gradient(135deg, #7c3aed, #db2777); font-size: 12px; letter-spacing: .02em; }
.cw-doc-name { font-weight: 700; word-break: break-all; color: var(--body-text-color); }
.cw-doc-title { font-size: 12px; color: var(--body-text-color-subdued); }
.cw-meta { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 12px; }
.cw-meta div { font-size: 12px; border-radius: 8px; padding: 3px 8px; background: var(--background-fill-secondary); }
.cw-meta dt { display: inline; color: var(--body-text-color-subdued); margin-right: 4px; }
.cw-meta dd { display: inline; margin: 0; font-weight: 600; }
.cw-passage { white-space: pre-wrap; font-size: 13.5px; line-height: 1.6; color: var(--body-text-color-subdued);
  border-left: 3px solid var(--border-color-primary); padding: 4px 0 4px 12px; max-height: 420px; overflow: auto; }
mark.cw-quote { background: #fde68a; color: #111827; padding: 1px 2px; border-radius: 3px;
  box-shadow: 0 0 0 2px #fde68a; }
.cw-verified { margin-top: 10px; font-size: 12px; color: #047857; }
.dark .cw-verified { color: #34d399; }
.cw-chunk-id { margin-top: 4px; font-size: 11px; color: var(--body-text-color-subdued); font-family: ui-monospace, monospace; }
.cw-profile .cw-field { margin-bottom: 10px; }
.cw-profile dt { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); }
.cw-profile dd { margin: 2px 0 0; }
.cw-profile ul { margin: 0; padding-left: 1.1em; }
.cw-muted { color: var(--body-text-color-subdued); }
.cw-small { font-size: 12px; }

/* documents */
#upload { min-height: 190px; }
.cw-hint { font-size: 12.5px; color: var(--body-text-color-subdued); margin: 4px 2px 0; }
.cw-results-box { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 10px 14px;
  background: var(--block-background-fill); }
.cw-results-summary { font-weight: 600; margin-bottom: 6px; }
.cw-table { width: 100%; border-collapse: collapse; font-size: 13.5px; margin: 0 !important; border: none !important; }
.cw-table thead, .cw-table tbody, .cw-table tr { border: none !important; background: transparent !important; }
.cw-table th, .cw-table td { border-left: none !important; border-right: none !important; border-top: none !important; }
#documents .cw-table { border: 1px solid var(--border-color-primary) !important; border-radius: 12px; border-collapse: separate;
  border-spacing: 0; overflow: hidden; background: var(--block-background-fill); }
.cw-table th { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); padding: 8px 10px; border-bottom: 1px solid var(--border-color-primary); }
.cw-table td { padding: 8px 10px; border-bottom: 1px solid var(--border-color-primary); vertical-align: middle; }
.cw-table tr:last-child td { border-bottom: none; }
.cw-results td { padding: 5px 8px; }
.cw-res-name { word-break: break-all; }
.cw-num { text-align: right; font-variant-numeric: tabular-nums; }
.cw-doclist td:nth-child(5) { max-width: 220px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.cw-docs-count { font-weight: 600; margin: 4px 2px 8px; }
.cw-pill { font-size: 11.5px; font-weight: 650; padding: 2px 9px; border-radius: 999px; white-space: nowrap; }
.cw-pill-added, .cw-pill-updated, .cw-pill-moved { background: #d1fae5; color: #065f46; }
.cw-pill-unchanged { background: #e5e7eb; color: #374151; }
.cw-pill-skipped, .cw-pill-rejected { background: #fee2e2; color: #991b1b; }
.cw-pill-removed { background: #e0e7ff; color: #3730a3; }
button.cw-remove { font-size: 12px; padding: 4px 12px; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--border-color-primary); background: transparent; color: var(--body-text-color-subdued); }
button.cw-remove:hover { border-color: #ef4444; color: #ef4444; }
button.cw-remove.cw-armed { background: #ef4444; border-color: #ef4444; color: #fff; }
.cw-empty { text-align: center; padding: 36px; color: var(--body-text-color-subdued);
  border: 1px dashed var(--border-color-primary); border-radius: 14px; }

/* people */
#people-controls { align-items: flex-end; }
.cw-people-status { font-size: 13px; color: var(--body-text-color-subdued); margin: 2px 2px 0; }
.cw-people-error { color: #b91c1c; font-weight: 600; }
.dark .cw-people-error { color: #f87171; }
.cw-people-wrap { overflow: auto; max-height: 680px; border: 1px solid var(--border-color-primary); border-radius: 12px;
  background: var(--block-background-fill); }
.cw-people-table { border-collapse: separate !important; border-spacing: 0; font-size: 13px; }
.cw-people-table thead th { position: sticky; top: 0; z-index: 1; background: var(--block-background-fill);
  padding: 0; vertical-align: bottom; }
button.cw-sort { all: unset; display: block; cursor: pointer; padding: 8px 10px; font: inherit; text-transform: inherit;
  letter-spacing: inherit; color: inherit; }
button.cw-sort:hover, button.cw-sort:focus-visible { color: var(--color-accent); }
.cw-people-table th[aria-sort="ascending"] button.cw-sort::after { content: " ▲"; }
.cw-people-table th[aria-sort="descending"] button.cw-sort::after { content: " ▼"; }
.cw-people-table td, .cw-people-table tbody th { vertical-align: top; padding: 8px 10px; min-width: 96px; }
.cw-people-table tr:last-child th { border-bottom: none; }
.cw-people-table tbody th.cw-person-cell { text-align: left; font-size: 13px; font-weight: 700; text-transform: none;
  letter-spacing: normal; color: var(--body-text-color); min-width: 110px; }
td.cw-cell { cursor: pointer; border-radius: 6px; transition: background .12s; }
td.cw-cell:hover, td.cw-cell:focus-visible { background: var(--background-fill-secondary); outline: none; }
td.cw-cell.cw-active { background: #e0e7ff; box-shadow: inset 0 0 0 2px #818cf8; }
.dark td.cw-cell.cw-active { background: #312e81; }
td.cw-cell-empty { color: var(--body-text-color-subdued); opacity: .55; font-style: italic; }
td.cw-cell { line-height: 1.4; overflow-wrap: anywhere; }  /* an address breaks inside its cell */
.cw-cell-src { font-size: 11px; font-weight: 400; color: var(--body-text-color-subdued); margin-top: 3px;
  overflow-wrap: anywhere; }
#people-panel { position: sticky; top: 12px; }
.cw-cell-caption { margin-bottom: 12px; padding-bottom: 10px; border-bottom: 1px solid var(--border-color-primary); }
.cw-cell-who { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); }
.cw-cell-answer { font-size: 16px; font-weight: 650; margin: 3px 0 4px; color: var(--body-text-color); }
"""


def theme() -> gr.themes.Base:
    system = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"]
    mono = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]
    return gr.themes.Soft(primary_hue="indigo", secondary_hue="violet", neutral_hue="slate", font=system, font_mono=mono)


def launch_styling() -> dict[str, Any]:
    """The `launch()` arguments that give the UI its look (Gradio 6 takes them there)."""
    return {"theme": theme(), "css": CSS}
