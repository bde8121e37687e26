"""Jupyter runtimes and the tools built on them."""
