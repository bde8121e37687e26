"""(m) The legacy content is the JSON text of structuredContent (what SDKs do today), not the
assistant/content output."""

import json

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if era is not Era.OUTPUTS and "structuredContent" in result:
            result["content"] = [{"type": "text", "text": json.dumps(result["structuredContent"])}]
        return result, breach

    app.build_result = build_result


launch(patch)
