"""Unit and property tests of the sans-I/O protocol core (no server, no kernel)."""
