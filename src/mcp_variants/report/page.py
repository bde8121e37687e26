"""The reviewer's report: one self-contained HTML file.

Top to bottom: the header (versions served, scenarios and conformance passed, traceability
coverage, how to rerun the suite against another server), every audience of one execution,
the numbers as charts, each scenario with its audience rows and its raw exchange one click
away, and the conformance suite's table. The page's Content-Security-Policy allows inline
script, style and data: images only, so neither the report nor a view inside it can load
anything; the views' iframes inherit it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape
from importlib import metadata
from pathlib import Path
from typing import Any

from .assets import HOST_ID, LOADER, embedded, host_script
from .context import context_figure
from .figures import bytes_figure, live_figure, roundtrip_figure
from .numbers import Bench, execution_bytes
from .record import DemoRun, Step
from .rows import Embeds, audience_rows, payload_scripts
from .style import CSS

CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-src 'none'"


def render(run: DemoRun, bench: Bench | None, coverage: dict[str, int]) -> str:
    """`coverage`: the traceability of sep-3279.yaml against the suite (`conformance.traceability.coverage().numbers()`)."""
    embeds = Embeds(run.views)
    raws: list[str] = []
    steps = run.all_steps
    executions = "".join(_scenario(e.step, f"x{i}", run, embeds, raws, side=True) for i, e in enumerate(run.executions))
    scenarios = "".join(_scenario(step, f"s{i}", run, embeds, raws) for i, step in enumerate(run.steps))
    body = [
        _header(run, steps, coverage),
        "<main>",
        "<h2 id=audiences class=first>One execution, every audience, side by side</h2>",
        "<p class=lead>Each call asks for every variant its tool declares; each column holds what the host router "
        "(<code>mcp_variants.client.HostRouter</code>) delivered to that consumer, and nothing else.</p>",
        executions,
        "<h2 id=numbers>The numbers</h2>",
        "<h3>Bytes per audience for the same execution</h3>",
        bytes_figure([execution_bytes(e) for e in run.executions]),
        "<h3>The round trip against the raw kernel</h3>",
        roundtrip_figure(bench),
        "<h3>Live edits</h3>",
        live_figure(bench),
        "<h3>What the model reads over a session</h3>",
        context_figure(bench),
        f"<h2 id=scenarios>The SEP's scenarios: {sum(s.passed for s in run.steps)}/{len(run.steps)} pass</h2>",
        _contents(run.steps),
        scenarios,
        _conformance(run.scorecard),
        "</main>",
        payload_scripts(embeds),
        *raws,
        *(embedded(element, run.views[uri]) for uri, element in embeds.used.items()),
        embedded(HOST_ID, host_script()),
        LOADER,
    ]
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<meta http-equiv=Content-Security-Policy content=\"{CSP}\">"
            f"<meta name=viewport content='width=device-width, initial-scale=1'>"
            f"<title>SEP-3279: the reviewer's report</title><style>{CSS}</style></head>"
            f"<body data-views=loading>{''.join(body)}</body></html>")


def write_report(run: DemoRun, path: Path, bench: Bench | None, coverage: dict[str, int]) -> None:
    path.write_text(render(run, bench, coverage), encoding="utf-8")


# ---- the header --------------------------------------------------------------------------------------


def _tile(title: str, big: str, small: str, ok: bool, link: str) -> str:
    return (f"<a class='tile {'t-ok' if ok else 't-bad'}' href='#{link}'><span class=t>{escape(title)}</span>"
            f"<span class=big>{big}</span><span class=small>{small}</span></a>")


def _header(run: DemoRun, steps: list[Step], coverage: dict[str, int]) -> str:
    totals = run.scorecard["totals"]
    passed = sum(s.passed for s in steps)
    versions = " · ".join(escape(v) for v in run.versions)
    tiles = [
        _tile("Versions served", f"{len(run.versions)} versions", versions, "2026-12-01" in run.versions, "s0"),
        _tile("Demo scenarios", f"{passed}/{len(steps)} pass", "against a live server on local kernels, routed by the reference host",
              passed == len(steps), "scenarios"),
        _tile("Conformance", f"{totals['pass']}/{totals['scenarios']} pass",
              f"{totals['fail']} fail · {totals['skip']} skip · {_must_rules(run.scorecard)}: every testing-plan item, every MUST "
              "visible on the wire", bool(run.scorecard.get("ok")) and run.scorecard["verdict"]["status"] == "pass", "conformance"),
    ]
    n = coverage
    traced = n["tested"] + n["excluded"]
    tiles.append(_tile("Traceability (sep-3279.yaml)", f"{traced}/{n['requirements']} requirements",
                       f"{n['tested']} checked by a scenario · {n['excluded']} excluded (not observable) · "
                       f"{n['untested']} untested · {n['untracked']} untracked check ids",
                       traced == n["requirements"] and n["untracked"] == 0, "conformance"))
    try:
        version = metadata.version("mcp-variants")
    except metadata.PackageNotFoundError:
        version = "?"
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<header class=top><div class=inner>"
        "<div class=headline-row><h1>SEP-3279: what each audience received</h1> "
        f"<span class=sub>the reference server, mcp-variants {escape(version)}, run by <code>make demo</code> on {generated}</span></div>"
        f"<div class=tiles>{''.join(tiles)}</div>"
        "<div class=under><div class=rerun><b>Rerun the suite against your own server</b>"
        "<pre>mcp-variants check --server-cmd \"your-server --stdio\"\n"
        "mcp-variants check --server-url http://127.0.0.1:3000/mcp</pre>"
        "<span class=small>a server on stdio, or one on streamable HTTP; exit status 1 when a MUST fails, "
        "<code>--scorecard FILE</code> writes the results. <code>make demo</code> makes this report again.</span></div>"
        "<p class=legend>Every scenario shows what the host router delivered to each of four consumers: "
        "<span class='key s-model'>Model</span> <code>assistant</code> · <span class='key s-user'>User</span> <code>user</code> · "
        "<span class='key s-program'>Program</span> <code>programmatic</code> · <span class='key s-view'>View</span> "
        "<code>io.modelcontextprotocol/ui</code> (a live MCP App). <span class=none>nothing</span> means that consumer received "
        "nothing. The raw request and response are one click away.</p></div>"
        "</div></header>"
    )


# ---- scenarios ---------------------------------------------------------------------------------------


def _contents(steps: list[Step]) -> str:
    items = "".join(f"<li><a href='#s{i}'>{_verdict(s)} {escape(s.title)}</a></li>" for i, s in enumerate(steps))
    return f"<ol class=contents>{items}</ol>"


def _verdict(step: Step) -> str:
    return "<span class='verdict v-pass'>PASS</span>" if step.passed else "<span class='verdict v-fail'>FAIL</span>"


def _scenario(step: Step, anchor: str, run: DemoRun, embeds: Embeds, raws: list[str], side: bool = False) -> str:
    checks = "".join(f"<li class={'ok' if ok else 'bad'}>{'✓' if ok else '✗'} {escape(name)}</li>" for name, ok in step.checks)
    raw, data = _raw(step, f"raw-{anchor}")
    raws.append(data)
    return (f"<section class=scenario id={anchor} data-scenario='{escape(step.title, quote=True)}' data-passed={str(step.passed).lower()}>"
            f"<h3>{_verdict(step)} {escape(step.title)}</h3>"
            f"<p class=rule>{escape(step.rule)}</p><ul class=checks>{checks}</ul>"
            f"{audience_rows(step, run.tools, embeds, side)}{raw}</section>")


def _raw(step: Step, element: str) -> tuple[str, str]:
    """The exchange, folded: its text is embedded compressed (a tools/list is 150 kB) and shown on first unfolding."""
    exchange = {"request": step.request, "response": without_base64(step.response)}
    size = len(json.dumps(step.response).encode())
    folded = (f"<details class=raw data-raw={element}><summary>The raw request and response ({size:,} bytes)</summary>"
              f"<pre>unfolding…</pre></details>")
    return folded, embedded(element, json.dumps(exchange, indent=2, ensure_ascii=False))


def without_base64(value: Any) -> Any:
    """`value` with each image block's base64 data replaced by its length (the rows show the image)."""
    if isinstance(value, dict):
        if value.get("type") == "image" and isinstance(value.get("data"), str):
            return {**value, "data": f"<{len(value['data']):,} base64 characters: the image is in the rows>"}
        return {k: without_base64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_base64(v) for v in value]
    return value


# ---- the conformance suite -----------------------------------------------------------------------------


def _must_rules(scorecard: dict[str, Any]) -> str:
    must = scorecard["verdict"]["mustRules"]
    return f"{must['exercised']}/{must['of']} MUST rules exercised"


def _conformance(scorecard: dict[str, Any]) -> str:
    totals = scorecard["totals"]
    verdict = {"pass": "OK", "fail": "FAIL", "incomplete": "INCOMPLETE"}[scorecard["verdict"]["status"]]
    rows = []
    for result in scorecard["scenarios"]:
        rule = "; ".join(f"{r['section']}: “{r['quote']}”" for r in result.get("rules", []))
        css = {"pass": "ok", "fail": "bad"}.get(result["status"], "")
        reason = f"<br><small>{escape(result.get('reason', ''))}</small>" if result["status"] != "pass" else ""
        rows.append(f"<tr><td class={css}>{result['status'].upper()}</td><td><code>{escape(result['id'])}</code></td>"
                    f"<td>{escape(result.get('title') or '')}{reason}</td><td>{result['level']}</td>"
                    f"<td><small>{escape(rule)}</small></td></tr>")
    return (f"<h2 id=conformance>The conformance suite: {totals['pass']} pass, {totals['fail']} fail, {totals['skip']} skip, "
            f"{verdict}</h2>"
            "<p>Every item of the SEP's testing plan and every MUST visible on the wire, run by "
            "<code>mcp-variants check</code> against a fresh server; host items against the reference client. "
            f"{_must_rules(scorecard)}: a scenario that could not be exercised is never counted as a pass.</p>"
            "<table class=suite><tr><th>verdict</th><th>scenario</th><th>what</th><th>level</th><th>rule</th></tr>"
            + "".join(rows) + "</table>")
