"""Zero configuration on one machine: the Jupyter server (JupyterLab, say) this user already runs
on --root or a folder above it, which `mcp-variants serve` then works through by default.

A running jupyter-server writes `jpserver-<pid>.json` into the user's Jupyter runtime folder
(what `jupyter server list --json` and jupyter_server's `list_running_servers` read): its URL,
token, root folder and PID. They are read here directly, the same way, without importing
jupyter_server.serverapp (most of a second of imports at every start). A server counts
when its process runs, its root folder is --root or contains it, and it answers /api/status to
its token; `survey` says of each running server whether it counts and why (what a setup doctor
shows). The token is handled like every token: kept for the Authorization header, never logged,
never in a result. httpx and psutil are imported only when there is an info file to check: most starts find none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from ..tokens import token_headers

STATUS_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class RunningServer:
    url: str
    root: Path
    pid: int
    version: str
    token: str = field(repr=False)

    def describe(self) -> str:
        """For the start-up message: no token."""
        return f"the Jupyter server {self.version} at {self.url} (pid {self.pid})"


def runtime_folder() -> Path:
    from jupyter_core.paths import jupyter_runtime_dir  # JUPYTER_RUNTIME_DIR, or the platform's default

    return Path(jupyter_runtime_dir())


def running_servers(folder: Path | None = None) -> list[RunningServer]:
    """The servers whose info file is in `folder` (the runtime folder) and whose process runs, newest first."""
    folder = folder or runtime_folder()
    try:
        files = sorted(folder.glob("jpserver-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
    except OSError:
        return []
    if not files:
        return []
    import psutil

    found = []
    for info_file in files:
        try:
            info = json.loads(info_file.read_text())
            server = RunningServer(url=str(info["url"]), root=Path(info["root_dir"]).resolve(), pid=int(info["pid"]),
                                   version=str(info.get("version", "")), token=str(info.get("token") or ""))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being written, or not a server's
        if psutil.pid_exists(server.pid):
            found.append(server)
    return found


class ServerVerdict(StrEnum):
    COUNTS = "counts"  # serves --root and answers to its token: notebooks under --root are worked on through it
    ELSEWHERE = "elsewhere"  # its root neither is nor contains --root
    UNREACHABLE = "unreachable"  # serves --root, but does not answer /api/status to its token


@dataclass(frozen=True)
class Finding:
    """One running Jupyter server, as seen from --root: whether it counts, and why or why not (`reason`, for people)."""

    server: RunningServer
    verdict: ServerVerdict
    reason: str
    prefix: str | None = None  # where --root is on that server, relative to its root ("" when its root is --root)

    @property
    def counts(self) -> bool:
        return self.verdict is ServerVerdict.COUNTS

    @property
    def serves_root(self) -> bool:
        """Its root is --root or contains it, whether it answers or not: its rooms may hold our notebooks."""
        return self.prefix is not None


def survey(root: Path, folder: Path | None = None, answered: set[tuple[int, str]] | None = None) -> list[Finding]:
    """Every running server of this user, the ones serving `root` first (the nearest root first), each with its verdict.
    `answered`: the (pid, URL) of servers that answered before, not asked again (one who asks at every call keeps it)."""
    root = root.resolve()
    answered = set() if answered is None else answered
    findings = []
    for server in running_servers(folder):
        if server.root != root and server.root not in root.parents:
            findings.append(Finding(server, ServerVerdict.ELSEWHERE, f"it serves {server.root}, which does not contain {root}"))
            continue
        below = root.relative_to(server.root)
        prefix = "" if below == Path() else below.as_posix()
        where = f"as {prefix}/ on it" if prefix else "as its root"
        if (server.pid, server.url) not in answered and (problem := _status_problem(server)):
            findings.append(Finding(server, ServerVerdict.UNREACHABLE, f"it serves {root} ({where}) but {problem}", prefix))
        else:
            answered.add((server.pid, server.url))
            findings.append(Finding(server, ServerVerdict.COUNTS, f"it serves {root} ({where}) and answers to its token", prefix))
    # Nearest root first (the longest), then the newest: running_servers' order within.
    return sorted(findings, key=lambda f: (f.prefix is None, -len(f.server.root.parts)))


def server_on(root: Path, folder: Path | None = None) -> Finding | None:
    """The running server of this user that serves `root` (its root folder, or a folder above it) and answers to its token."""
    return next((f for f in survey(root, folder) if f.counts), None)


def _status_problem(server: RunningServer) -> str | None:
    """Why the server does not answer /api/status to its token, or None when it does."""
    import httpx

    try:
        status = httpx.get(f"{server.url.rstrip('/')}/api/status", headers=token_headers(server.token), timeout=STATUS_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return f"does not answer at {server.url} ({type(exc).__name__})"
    if status.status_code != 200:
        return f"answers GET /api/status with HTTP {status.status_code} to the token in its info file"
    return None


def server_problem(url: str, token: str | None, timeout: float = 10.0) -> str | None:
    """What is wrong with --jupyter-url and --jupyter-token, said at start (the token never in it), or None
    when the server answers /api/status to the token. Without this a wrong token shows only at the first
    tool call, as that call's error."""
    import httpx

    try:
        status = httpx.get(f"{url.rstrip('/')}/api/status", headers=token_headers(token), timeout=timeout)
    except httpx.HTTPError as exc:
        return f"--jupyter-url {url} cannot be reached ({type(exc).__name__}: {exc}); is the Jupyter server running there?"
    if status.status_code in (401, 403):
        if not token:
            return f"{url} wants a token (HTTP {status.status_code}): give --jupyter-token (or JUPYTER_TOKEN)"
        return (f"--jupyter-token is not accepted by {url} (HTTP {status.status_code}): give that server's token "
                "(`jupyter server list` shows it), by --jupyter-token or JUPYTER_TOKEN")
    if status.status_code != 200:
        return (f"--jupyter-url {url} does not answer as a Jupyter server (GET /api/status: HTTP {status.status_code}); "
                "give its base URL, such as http://127.0.0.1:8888/ (with its base_url, if it has one)")
    return None
