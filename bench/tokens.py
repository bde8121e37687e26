"""Token counts with a real tokenizer, offline: npm's gpt-tokenizer (o200k_base, the GPT-4o encoding), whose
encodings ship inside the package, run by Node from bench/tokenizer/.

`count(texts)` installs bench/tokenizer's pinned package first (`npm ci`, once per package-lock.json: a stamp
holds the lock's hash), then counts every text in one Node process. Needs Node >= 18 and npm; nothing is
downloaded at run time.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys

from .record import REPO

sys.path.insert(0, str(REPO / "tests"))  # the test harness: how it finds a Node
from support.lab import find_node  # noqa: E402

FOLDER = REPO / "bench" / "tokenizer"
STAMP = FOLDER / "node_modules" / ".installed-from-lock"
PACKAGE = "gpt-tokenizer"
ENCODING = "o200k_base"


class TokenizerUnavailable(RuntimeError):
    pass


def node() -> str:
    found = find_node(18)
    if found is None:
        raise TokenizerUnavailable("no Node >= 18 on PATH or in tests/outside (it counts the tokens: bench/tokenizer)")
    return found


def install() -> None:
    """`npm ci` in bench/tokenizer unless its stamp says the lockfile's packages are there already."""
    want = hashlib.sha256((FOLDER / "package-lock.json").read_bytes()).hexdigest()
    if STAMP.is_file() and STAMP.read_text() == want:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise TokenizerUnavailable("no `npm` on PATH to install bench/tokenizer's gpt-tokenizer")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=FOLDER, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        raise TokenizerUnavailable(f"npm ci in bench/tokenizer failed: {done.stderr[-1500:]}")
    STAMP.write_text(want)


def version() -> str:
    return str(json.loads((FOLDER / "node_modules" / PACKAGE / "package.json").read_text())["version"])


def count(texts: list[str]) -> list[int]:
    """The o200k_base token count of each text."""
    install()
    done = subprocess.run([node(), str(FOLDER / "count.mjs")], input=json.dumps(texts), capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise TokenizerUnavailable(f"bench/tokenizer/count.mjs failed: {done.stderr[-1500:]}")
    counts = json.loads(done.stdout)
    if len(counts) != len(texts):
        raise TokenizerUnavailable(f"asked for {len(texts)} counts, got {len(counts)}")
    return [int(n) for n in counts]
