"""The benchmarks (bench/, at the repository's root) import as `bench`, as `python -m bench` runs them
(appended to the path: nothing the other tests import is shadowed)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
