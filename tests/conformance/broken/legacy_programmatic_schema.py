"""(h) The legacy outputSchema is the programmatic/structured schema (an SDK inferring that
one schema fits every audience), while structuredContent stays assistant/structured."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol import tools_list
    from mcp_variants.protocol.types import PROGRAMMATIC_STRUCTURED
    from mcp_variants.protocol.versions import Era

    original = tools_list.legacy_output_schema

    def legacy_output_schema(declaration, era):  # type: ignore[no-untyped-def]
        variant = declaration.variant(PROGRAMMATIC_STRUCTURED)
        if era in (Era.LEGACY_OBJECT, Era.LEGACY_ANY) and variant is not None and variant.schema is not None:
            return variant.schema
        return original(declaration, era)

    tools_list.legacy_output_schema = legacy_output_schema


launch(patch)
