"""mcp-variants: the reference server for SEP-3279 (audience-directed tool result variants)."""

__version__ = "0.1.0"
