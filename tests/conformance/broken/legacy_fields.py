"""(q) Both result shapes at 2026-12-01: a success also carries the legacy `content` beside
`outputs` (an SDK that keeps filling the old field)."""

import json

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if era is Era.OUTPUTS and not result.get("isError"):
            first = result["outputs"][0]
            result["content"] = first.get("content") or [{"type": "text", "text": json.dumps(first.get("structuredContent"))}]
        return result, breach

    app.build_result = build_result


launch(patch)
