"""A scenario's audience rows: one per consumer (model, user, program, view), holding exactly what
the host router delivered to that consumer's sink.

* content: text as text, images as images, other blocks named;
* structured: a collapsible tree;
* the view: a live iframe of the real ui:// view (started by the report's host script), given
  the ui output the view sink received, and that output as a tree beside it;
* nothing: said as plainly as something, with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..client.apps_host import linked_view
from ..client.router import SINK_OF_AUDIENCE, Delivery
from .charts import human_bytes
from .numbers import json_bytes
from .record import SINKS, Step
from .tree import tree

AUDIENCE_OF_SINK = {sink: audience for audience, sink in SINK_OF_AUDIENCE.items()}
SINK_TITLES = {"model": "Model", "user": "User", "program": "Program", "view": "View"}


@dataclass
class Embeds:
    """What the page embeds beside the rows: one payload per view iframe, one HTML per view used."""

    views: dict[str, str]  # uri -> the view's HTML (resources/read)
    payloads: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (element id, payload)
    used: dict[str, str] = field(default_factory=dict)  # uri -> element id of its embedded HTML

    def view(self, uri: str, tool: dict[str, Any], arguments: dict[str, Any], tool_result: dict[str, Any]) -> str:
        """Register a view iframe's payload; returns the payload's element id."""
        embed = self.used.setdefault(uri, f"view-html-{len(self.used)}")
        element = f"view-payload-{len(self.payloads)}"
        self.payloads.append((element, {"uri": uri, "embed": embed, "tool": tool, "arguments": arguments, "toolResult": tool_result}))
        return element


def audience_rows(step: Step, tools: dict[str, dict[str, Any]], embeds: Embeds, side: bool = False) -> str:
    """The four rows (`side`: as four columns, for comparing one execution's audiences)."""
    rows = []
    for sink in SINKS:
        received: Sequence[Delivery] = step.routed.received[sink] if step.routed else ()
        selectors = " ".join(str(d.selector or d.legacy_field) for d in received)
        if received:
            body = "".join(_delivery(sink, d, step, tools, embeds) for d in received)
        else:
            body = f"<div class=nothing><span class=none>nothing</span> <span class=why>{escape(_why_nothing(step, sink))}</span></div>"
        rows.append(f"<div class='row r-{sink}' data-audience={sink} data-selectors='{escape(selectors, quote=True)}'>"
                    f"<div class=who><b>{SINK_TITLES[sink]}</b><small>{escape(AUDIENCE_OF_SINK[sink])}</small></div>"
                    f"<div class=got>{body}</div></div>")
    dropped = ""
    if step.routed and step.routed.dropped:
        dropped = "<p class=bad>Dropped by the router: " + escape("; ".join(step.routed.dropped)) + "</p>"
    return f"<div class='rows{' side' if side else ''}'>{''.join(rows)}</div>{dropped}"


def _why_nothing(step: Step, sink: str) -> str:
    if step.routed is None:
        return step.nothing or "nothing was routed"
    if step.routed.legacy:
        return ("a legacy result (before 2026-12-01) has no outputs: the router gives its content to the model "
                "and its structuredContent to the program, and nothing to anyone else")
    return "not requested: the server sent nothing for this consumer"


def _delivery(sink: str, delivery: Delivery, step: Step, tools: dict[str, dict[str, Any]], embeds: Embeds) -> str:
    what = str(delivery.selector) if delivery.selector else f"legacy {delivery.legacy_field}"
    error = " <span class=bad>isError</span>" if delivery.is_error else ""
    head = f"<div class=what><code>{escape(what)}</code> <span class=n>{human_bytes(json_bytes(delivery.payload))}</span>{error}</div>"
    if sink == "view" and delivery.selector is not None:
        return head + _view(delivery, step, tools, embeds)
    if (delivery.selector is not None and delivery.selector.format == "structured") or delivery.legacy_field == "structuredContent":
        return head + tree(delivery.payload)
    return head + _blocks(delivery.payload)


def _blocks(blocks: Any) -> str:
    out = []
    for block in blocks if isinstance(blocks, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            out.append(f"<pre class=text>{escape(str(block.get('text', '')))}</pre>")
        elif kind == "image":
            out.append(f"<img class=image alt='image output ({escape(str(block.get('mimeType')), quote=True)})' "
                       f"src='data:{escape(str(block.get('mimeType')), quote=True)};base64,{escape(str(block.get('data')), quote=True)}'>")
        else:
            out.append(f"<div class=block>[{escape(str(kind))} block] {tree(block)}</div>")
    return "".join(out) or "<div class=nothing><span class=none>no blocks</span></div>"


def _view(delivery: Delivery, step: Step, tools: dict[str, dict[str, Any]], embeds: Embeds) -> str:
    tool = tools.get(step.tool or "", {"name": step.tool})
    uri = linked_view(tool)
    received = step.routed.view_result() if step.routed else None
    if uri is None or uri not in embeds.views or received is None:
        return "<p class=bad>no view to show it in</p>" + tree(delivery.payload)
    payload = embeds.view(uri, tool, step.arguments, received)
    return (f"<iframe class=view sandbox='allow-scripts' title='{escape(uri, quote=True)}' data-payload={payload} "
            f"data-state=loading></iframe>"
            f"<details class=received><summary>what the view received (ui/notifications/tool-result)</summary>{tree(received)}</details>")


def payload_scripts(embeds: Embeds) -> str:
    """The view payloads as JSON script elements."""
    return "".join(f"<script type=application/json id={element}>{script_json(payload)}</script>" for element, payload in embeds.payloads)


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: every "<" escaped, so nothing can end or confuse it."""
    return json.dumps(value).replace("<", "\\u003c")
