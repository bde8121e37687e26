"""The suite's fork server (support/forkserver.py) runs a program as an exec of the interpreter would: the same
argv, folder, environment, stdin/stdout/stderr and exit status; signals reach it, and it ends with its stand-in.
Each check compares the fork with an exec of the same command line, so what a server sees is the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from support.processes import gone, started_by_exec
from support.servers import python_command

pytestmark = pytest.mark.skipif(os.environ.get("MCP_VARIANTS_TEST_FORKS") == "0", reason="MCP_VARIANTS_TEST_FORKS=0: no fork server")

PROGRAM = """
import json, os, signal, sys, time
if sys.argv[1:2] == ["wait"]:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))
    print(os.getpid(), flush=True)
    time.sleep(60)
if sys.argv[1:2] == ["die"]:
    print(os.getpid(), flush=True)
    time.sleep(60)
print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "path0": sys.path[0], "name": __name__,
                  "env": os.environ.get("FORKSERVER_PROBE"), "stdin": sys.stdin.read(), "preloaded": "mcp" in sys.modules,
                  "stdout_tty": sys.stdout.isatty(), "line_buffered": sys.stdout.line_buffering}))
print("to stderr", file=sys.stderr)
sys.exit(3)
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def _run(head: list[str], program: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*head, str(program), "a b", "--c"], input="what stdin held", cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_fork_sees_what_an_exec_sees(program: Path, tmp_path: Path) -> None:
    env = {**os.environ, "FORKSERVER_PROBE": "passed"}
    forked, executed = (_run(python_command(fresh=fresh), program, tmp_path, env) for fresh in (False, True))
    assert (forked.returncode, executed.returncode) == (3, 3)
    assert forked.stderr == executed.stderr == "to stderr\n"
    seen, expected = json.loads(forked.stdout), json.loads(executed.stdout)
    assert seen.pop("preloaded") and not expected.pop("preloaded"), "the fork starts with the SDK imported"
    assert seen == expected == {"argv": ["a b", "--c"], "cwd": str(tmp_path), "path0": str(program.parent), "name": "__main__",
                                "env": "passed", "stdin": "what stdin held", "stdout_tty": False, "line_buffered": False}


def test_a_different_python_environment_is_run_by_an_exec(program: Path, tmp_path: Path) -> None:
    done = _run(python_command(), program, tmp_path, {**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 3 and not json.loads(done.stdout)["preloaded"]


def _start(program: Path, *argv: str) -> tuple[subprocess.Popen[str], psutil.Process]:
    stand_in = subprocess.Popen([*python_command(), str(program), *argv], stdout=subprocess.PIPE, text=True)
    assert stand_in.stdout is not None
    fork = psutil.Process(int(stand_in.stdout.readline()))
    assert fork.pid != stand_in.pid and fork.ppid() != stand_in.pid
    return stand_in, fork


def test_a_signal_to_the_stand_in_reaches_the_fork_and_its_exit_comes_back(program: Path) -> None:
    stand_in, fork = _start(program, "wait")
    with pytest.raises(AssertionError, match="stand-in"):
        started_by_exec(stand_in.pid)  # a test that reads a server by PID would read the stand-in
    stand_in.send_signal(signal.SIGTERM)
    assert stand_in.wait(timeout=30) == 7
    assert gone(fork)


def test_a_fork_killed_by_a_signal_is_a_stand_in_killed_by_it(program: Path) -> None:
    stand_in, fork = _start(program, "die")
    stand_in.send_signal(signal.SIGTERM)
    assert stand_in.wait(timeout=30) == -signal.SIGTERM
    assert gone(fork)


def test_a_killed_stand_in_takes_its_fork_with_it(program: Path) -> None:
    stand_in, fork = _start(program, "wait")
    stand_in.kill()
    assert stand_in.wait(timeout=30) == -signal.SIGKILL
    assert gone(fork), "the fork outlived its stand-in"
