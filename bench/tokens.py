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

from .record import REPO

FOLDER = REPO / "bench" / "tokenizer"
STAMP = FOLDER / "node_modules" / ".installed-from-lock"
PACKAGE = "gpt-tokenizer"
ENCODING = "o200k_base"
# Node 22 of tests/outside (its install.sh) when it is there, else the machine's.
OUTSIDE_NODE = REPO / "tests" / "outside" / "node_modules" / ".bin" / "node"


class TokenizerUnavailable(RuntimeError):
    pass


def node() -> str:
    found = str(OUTSIDE_NODE) if OUTSIDE_NODE.exists() else shutil.which("node")
    if found is None:
        raise TokenizerUnavailable("no `node` on PATH (Node >= 18 counts the tokens: bench/tokenizer)")
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
