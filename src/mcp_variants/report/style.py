"""The report's stylesheet (inline in the page). One colour per consumer, used by the rows and the charts."""

CSS = """
:root{--model:#2563eb;--user:#059669;--program:#d97706;--view:#7c3aed;--legacy:#6b7280;--legacy2:#b6bcc6;--mirror:#dc4a4a;
--raw:#9aa3af;--server:#2563eb;--ok:#15803d;--bad:#b91c1c;--line:#d9dde3;--muted:#667085;--bg:#f4f5f7}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:var(--bg)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
a{color:inherit}
header.top{background:#151a22;color:#f3f5f8;padding:12px 24px 10px}
header.top .inner,main{max-width:1180px;margin:0 auto}
main{padding:4px 24px 60px}
h1{font-size:20px;margin:0;letter-spacing:-.01em;display:inline}
h2{font-size:18px;margin:28px 0 8px;padding-top:8px;border-top:2px solid var(--line)}
h2.first{border-top:0;margin-top:14px;padding-top:0}
h3{font-size:15px;margin:18px 0 6px}
.sub{color:#aeb7c3;margin:0 0 0 10px;font-size:13px;display:inline}
.headline-row{margin:0 0 10px}
.tiles{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}
.tile{display:flex;flex-direction:column;text-decoration:none;background:#212834;border-radius:8px;padding:7px 12px;
border-top:3px solid var(--ok)}
.tile.t-bad{border-top-color:var(--bad)}
.tile .big{color:#5ee08c}.tile.t-bad .big{color:#ff8a8a}
.tile .t{font-size:12px;color:#aeb7c3;text-transform:uppercase;letter-spacing:.04em}
.tile .big{font-size:21px;font-weight:650;margin:0}
.tile .small{font-size:12px;color:#c6ced8}
.under{display:grid;grid-template-columns:minmax(0,11fr) minmax(0,9fr);gap:18px;margin-top:10px;align-items:start}
.rerun{font-size:13px}
.rerun pre{margin:4px 0;background:#0c1016;color:#dfe6ee;padding:7px 10px;border-radius:6px;
font:12.5px/1.5 ui-monospace,monospace;overflow:auto}
.rerun .small{color:#aeb7c3;font-size:12px}
.legend{margin:0;font-size:13px;color:#c6ced8;line-height:1.7}
.legend code{color:#f3f5f8}
.legend .none{background:transparent;color:#c6ced8;border-color:#7d8793}
.key{display:inline-block;color:#fff;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
.key.s-model{background:var(--model)}.key.s-user{background:var(--user)}.key.s-program{background:var(--program)}
.key.s-view{background:var(--view)}
.lead{color:#3b4350;max-width:70em;margin:0 0 6px}
section.scenario{background:#fff;border:1px solid var(--line);border-radius:10px;padding:10px 14px 12px;margin:12px 0}
section.scenario h3{margin:0 0 1px;font-size:15px}
.verdict{display:inline-block;font-size:10.5px;font-weight:700;padding:1px 7px;border-radius:9px;color:#fff;background:var(--ok);
vertical-align:1px}
.verdict.v-fail{background:var(--bad)}
.rule{color:var(--muted);font-style:italic;margin:0 0 2px;font-size:13px}
ul.checks{margin:2px 0 8px;padding:0;list-style:none;font-size:12.5px;display:flex;flex-wrap:wrap;gap:2px 16px}
.ok{color:var(--ok)}.bad{color:var(--bad)}
.rows{border:1px solid var(--line);border-radius:8px;overflow:hidden}
.row{display:grid;grid-template-columns:190px minmax(0,1fr);border-top:1px solid var(--line)}
.row:first-child{border-top:0}
.row .who{padding:7px 10px;border-left:5px solid var(--c);background:#f8f9fb;display:flex;flex-wrap:wrap;align-items:baseline;
column-gap:6px}
.row .who b{color:var(--c)}
.row .who small{color:var(--muted);font-size:11px;word-break:break-all}
.row .got{padding:6px 10px;min-width:0}
.r-model{--c:var(--model)}.r-user{--c:var(--user)}.r-program{--c:var(--program)}.r-view{--c:var(--view)}
.what{font-size:12px;color:var(--muted);margin:1px 0 3px}
.what code{color:#1b1f24;background:#eef0f3;padding:0 4px;border-radius:3px;word-break:break-all}
.n{color:#8a929c;font-size:11.5px}
.none{display:inline-block;padding:0 9px;border:1px dashed #9aa3af;border-radius:10px;color:var(--muted);font-size:12px;background:#fff}
.nothing{padding:2px 0}.nothing .why{color:var(--muted);font-size:12px;margin-left:4px}
pre.text{margin:3px 0;max-height:180px;overflow:auto;background:#f4f5f7;padding:6px 8px;border-radius:5px;
font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;word-break:break-word}
img.image{display:block;max-width:min(100%,340px);max-height:220px;border:1px solid var(--line);border-radius:4px;margin:4px 0;
background:#fff}
.tree{font:12px/1.55 ui-monospace,monospace;max-height:300px;overflow:auto}
.tree details>:not(summary),.tree details>.leaf{margin-left:16px}
.tree summary{cursor:pointer}
.tree .k{color:#7a3e9d}.tree .s{color:#0a7a3d;word-break:break-all}.tree .v{color:#1d4ed8}.tree .p{color:#8a929c}
iframe.view{display:block;width:100%;height:140px;border:1px solid var(--line);border-radius:6px;background:#fff}
details.received{margin-top:4px;font-size:12px}
details.received summary,details.raw summary{cursor:pointer;color:var(--muted)}
details.raw{margin-top:8px;font-size:12.5px}
details.raw .pair{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:10px}
details.raw pre{margin:4px 0;max-height:420px;overflow:auto;background:#f4f5f7;padding:8px;border-radius:5px;
font:11.5px/1.4 ui-monospace,monospace;
white-space:pre-wrap;word-break:break-all}
.figures{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px}
figure.wide{max-width:760px}
figure{margin:0;background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px 10px}
figcaption{font-weight:600;font-size:13px;margin-bottom:6px}
svg.chart{display:block;max-width:100%;height:auto;font:11px system-ui,sans-serif}
svg .label{fill:#374151}svg .value{fill:#111827;font-weight:600}svg .marker{stroke:var(--bad);stroke-dasharray:3 3}
.s-model{fill:var(--model)}.s-user{fill:var(--user)}.s-program{fill:var(--program)}.s-view{fill:var(--view)}
.s-legacy{fill:var(--legacy)}.s-legacy2{fill:var(--legacy2)}.s-mirror{fill:var(--mirror)}.s-raw{fill:var(--raw)}
.s-server{fill:var(--server)}
svg .alt{opacity:.6}
table.context td.num{text-align:right;font-variant-numeric:tabular-nums}table.context tr.total{font-weight:600}
table.context .bad{color:var(--bad);font-weight:700}
.caption{color:var(--muted);font-size:12.5px;max-width:70em}
.headline{font-size:14px}
.missing{background:#fff;border:1px dashed #9aa3af;border-radius:8px;padding:10px 12px;color:var(--muted)}
ol.contents{columns:2;font-size:13px;padding-left:20px}
ol.contents a{text-decoration:none}
table.suite{border-collapse:collapse;background:#fff;font-size:12.5px}
table.suite td,table.suite th{border:1px solid var(--line);padding:4px 6px;vertical-align:top;text-align:left}
.rows.side{display:grid;grid-template-columns:repeat(3,minmax(0,1fr)) minmax(0,1.35fr)}
.rows.side .row{display:flex;flex-direction:column;border-top:0;border-left:1px solid var(--line)}
.rows.side .row:first-child{border-left:0}
.rows.side .row .who{border-left:0;border-top:5px solid var(--c);display:flex;gap:8px;align-items:baseline}
.rows.side .got{max-height:460px;overflow:auto}
.rows.side pre.text{max-height:140px}
.rows.side iframe.view{height:300px}
@media (max-width:900px){.tiles,.figures{grid-template-columns:1fr 1fr}}
"""
