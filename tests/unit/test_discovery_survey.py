"""discovery.survey: each running Jupyter server of this user, whether it counts for --root and why, from the
info files a Jupyter server writes (here written by the test for this test's own process, which runs; the servers
that answer are tested with a real JupyterLab in tests/integration/test_zero_config.py)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from mcp_variants.jupyter.discovery import ServerVerdict, server_on, survey


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def info_file(folder: Path, name: str, root: Path, pid: int | None = None) -> None:
    folder.mkdir(exist_ok=True)
    url = f"http://127.0.0.1:{closed_port()}/"
    (folder / f"jpserver-{name}.json").write_text(json.dumps(
        {"url": url, "root_dir": str(root), "pid": pid or os.getpid(), "version": "2.0", "token": "secret-token"}))


def test_a_server_above_root_serves_it_with_the_path_below_and_one_elsewhere_does_not(tmp_path: Path) -> None:
    home, project, other = tmp_path / "home", tmp_path / "home" / "work" / "project", tmp_path / "other"
    for folder in (project, other):
        folder.mkdir(parents=True)
    runtime = tmp_path / "runtime"
    info_file(runtime, "1", other)
    info_file(runtime, "2", home)
    elsewhere, above = sorted(survey(project, runtime), key=lambda f: f.prefix is not None)
    assert elsewhere.verdict is ServerVerdict.ELSEWHERE and not elsewhere.serves_root and str(other) in elsewhere.reason
    assert above.serves_root and above.prefix == "work/project"
    assert above.verdict is ServerVerdict.UNREACHABLE and "does not answer" in above.reason and "work/project/" in above.reason
    assert "secret-token" not in repr(above) and "secret-token" not in above.reason
    assert server_on(project, runtime) is None, "a server that does not answer does not count"


def test_the_nearest_root_comes_first_and_a_dead_process_is_not_listed(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    runtime = tmp_path / "runtime"
    info_file(runtime, "far", home)
    info_file(runtime, "near", project)
    info_file(runtime, "dead", project, pid=2**22 + 12345)  # above pid_max's default: no such process
    assert [f.prefix for f in survey(project, runtime)] == ["", "project"]


def test_no_runtime_folder_no_findings(tmp_path: Path) -> None:
    assert survey(tmp_path, tmp_path / "absent") == []
