"""The three distributions. Not named `packaging`: tests/ is on sys.path, and the `packaging` library must stay importable."""
