"""Integration tests: the notebook tools on a real server process, real kernels, real files."""
