"""(d) A structured output that breaks its schema, sent as a success: programmatic/structured
is replaced after the server's own validation ran."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if era is Era.OUTPUTS and not result.get("isError"):
            for output in result.get("outputs", []):
                if output["audience"] == "programmatic":
                    output["structuredContent"] = "not what the programmatic schema describes"
        return result, breach

    app.build_result = build_result


launch(patch)
