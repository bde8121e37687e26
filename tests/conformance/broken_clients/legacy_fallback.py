"""Legacy fallback: a Tool listed at 2026-12-01 without outputVariants is taken as a legacy
tool, called without requestedOutputs, and its answer read with the legacy semantics."""

from _launch import launch


def patch() -> None:
    from mcp_variants.client import session, tools
    from mcp_variants.client.results import check_legacy

    original_tool = tools._outputs_tool

    def outputs_tool(name, raw, negotiated, problems):  # type: ignore[no-untyped-def]
        if not isinstance(raw.get("outputVariants"), list):
            return tools.ToolInfo(name, output_schema=raw.get("outputSchema"), raw=raw)
        return original_tool(name, raw, negotiated, problems)

    original_call = session.ClientSession.call

    def call(self, tool, arguments=None, outputs=None):  # type: ignore[no-untyped-def]
        if not self.list_tools().get(tool).variants and not self.era.is_legacy:
            result = self._request("tools/call", {"name": tool, "arguments": dict(arguments or {})})
            return check_legacy(tool, self.version, result, self.list_tools())
        return original_call(self, tool, arguments, outputs)

    tools._outputs_tool = outputs_tool
    session.ClientSession.call = call


launch(patch)
