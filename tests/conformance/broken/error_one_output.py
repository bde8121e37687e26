"""(n) One error output whatever was asked: a failing 2026-12-01 call answers only the first
requested selector."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if era is Era.OUTPUTS and result.get("isError"):
            result["outputs"] = result["outputs"][:1]
        return result, breach

    app.build_result = build_result


launch(patch)
