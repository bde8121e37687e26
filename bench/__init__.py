"""Benchmarks for mcp-variants: the SEP-3279 core's cost per call, the stdio round trip, execute_code
on each runtime against its raw client, list_files over 1,000 files, and response sizes per variant.

They measure and record; they assert nothing. Run them with `python -m bench` from the
repository root (see docs/performance.md); `python -m bench --smoke` (bench.smoke, what CI
runs) is the one that fails, on an error or a gross regression.
"""
