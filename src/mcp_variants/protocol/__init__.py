"""The sans-I/O core of SEP-3279: plain functions over plain data.

Nothing in this package reads a socket, a file or a clock. The MCP SDK, the
transports and Jupyter sit around it; another SDK can reuse it as it is.
"""
