"""The benchmarks (bench/, at the repository's root) import as `bench`, as `python -m bench` runs them
(appended to the path: nothing the other tests import is shadowed)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))


def smoke_run(*options: str) -> subprocess.CompletedProcess[str]:
    """`python -m bench --smoke OPTIONS`, asserted to pass; its output is printed (pytest shows it on a failure)."""
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", *options], cwd=REPO, capture_output=True, text=True, timeout=1700)
    print(done.stdout[-6000:])
    assert done.returncode == 0, f"the smoke run failed ({done.returncode}):\n{done.stdout[-6000:]}\n{done.stderr[-4000:]}"
    assert "smoke run: " in done.stdout
    return done
