"""The benchmarks (bench/, at the repository's root) import as `bench`, as `python -m bench` runs them."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
