"""The MCP SDK wiring: handlers, the 2026-12-01 bridge, transports and the CLI."""
