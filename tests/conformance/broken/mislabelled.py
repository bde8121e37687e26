"""(r) Outputs labelled with the wrong selector: every 2026-12-01 output says audience `assistant`,
whatever the selector it answers (an SDK that knows one audience)."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if era is Era.OUTPUTS:
            for output in result["outputs"]:
                output["audience"] = "assistant"
        return result, breach

    app.build_result = build_result


launch(patch)
