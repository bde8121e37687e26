"""(p) An empty fallback: a successful assistant/content output carries no content block (and so
does the legacy content projected from it)."""

from _launch import launch


def patch() -> None:
    from mcp_variants.sdk import _toolset as app

    original = app.build_result

    def build_result(declaration, selectors, era, outcome, projectors, validators):  # type: ignore[no-untyped-def]
        result, breach = original(declaration, selectors, era, outcome, projectors, validators)
        if not result.get("isError"):
            for output in result.get("outputs", []):
                if (output["audience"], output["format"]) == ("assistant", "content"):
                    output["content"] = []
            if "content" in result:
                result["content"] = []
        return result, breach

    app.build_result = build_result


launch(patch)
