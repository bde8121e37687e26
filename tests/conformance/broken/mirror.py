"""(a) An unrequested mirror: a structured output requested alone also comes back as an
assistant/content text mirror of it (what SDKs do today for structuredContent)."""

import json

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        outputs = result.get("outputs")
        if era is Era.OUTPUTS and outputs and not result.get("isError") and all(o["format"] == "structured" for o in outputs):
            mirror = json.dumps(outputs[0]["structuredContent"])
            outputs.append({"audience": "assistant", "format": "content", "content": [{"type": "text", "text": mirror}]})
        return result, breach

    app.build_result = build_result


launch(patch)
