"""Benchmarks for mcp-variants: the SEP-3279 core's cost per call, and the stdio round trip.

They measure and record; they assert nothing. Run them with `python -m bench` from the
repository root (see docs/performance.md).
"""
