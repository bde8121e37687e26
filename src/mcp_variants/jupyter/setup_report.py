"""The user's setup, said plainly: which runtime `serve` uses with these options and why, which Jupyter servers of
this user run and why each counts or not, which kernel runs their code and whether it has the packages they name,
where the logs go. `mcp-variants doctor` prints it; `list_kernels` says its runtime and kernel part.

Nothing is started: the Jupyter servers are read from their info files and asked for /api/status and
/api/kernelspecs, and the packages are looked up by the kernel's own Python (`importlib.util.find_spec`, nothing
imported), so the answer is the same as what a run would find, without a kernel.

`_jupyter_servers` is the one place that reads discovery's rule (which running server counts for a root, and why
another does not), so that it changes with the rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tokens import token_headers
from .discovery import RunningServer, server_problem, survey

PACKAGE_CHECK_TIMEOUT_S = 30.0
HTTP_TIMEOUT_S = 5.0
# Run by the kernel's own Python: each name as a module (find_spec, nothing imported) or a distribution, its version.
FIND_PACKAGES = """
import importlib.metadata as m, importlib.util as u, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        version = m.version(name)
    except m.PackageNotFoundError:
        version = None
    try:
        module = u.find_spec(name) is not None
    except (ImportError, ValueError):
        module = False
    found[name] = version or ("" if module else None)
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Observation:
    """One line of the report: what it is about, whether it is a problem (None: neither), what it says."""

    topic: str
    ok: bool | None
    said: str


@dataclass
class SetupReport:
    runtime: str  # "embedded" or "remote"
    why: str
    findings: list[Observation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(finding.ok is not False for finding in self.findings)

    def text(self) -> str:
        marks = {True: "ok  ", False: "FIX ", None: "    "}
        lines = [f"runtime: {self.runtime}: {self.why}"]
        lines += [f"{marks[f.ok]}{f.topic}: {f.said}" for f in self.findings]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "runtime": self.runtime, "why": self.why,
                "findings": [{"topic": f.topic, "ok": f.ok, "said": f.said} for f in self.findings]}


def diagnose(root: Path, *, kernel: str, needs: Sequence[str] = (), jupyter_url: str | None = None,
             jupyter_token: str | None = None, embedded: bool = False, audit_log: str | None = None) -> SetupReport:
    """What `serve` with these options would work through, and with what (see the module's docstring)."""
    root = root.expanduser().resolve()
    findings: list[Observation] = []
    if not root.is_dir():
        findings.append(Observation("root", False, f"{root} is not a folder: give --root an existing folder, written out "
                                               "(a desktop client expands neither ~ nor $VARIABLES in args for the server)"))
    found, servers = _jupyter_servers(root)
    findings.extend(Observation("jupyter server", None, said) for said in servers)
    if not servers:
        findings.append(Observation("jupyter server", None, "no Jupyter server of this user runs (none in `jupyter server list`)"))
    if jupyter_url:
        problem = server_problem(jupyter_url, jupyter_token)
        report = SetupReport("remote", f"--jupyter-url {jupyter_url} (or JUPYTER_URL) was given", findings)
        findings.append(Observation("jupyter url", problem is None, problem or f"{jupyter_url} answers to the token"))
        _remote_kernel(report, jupyter_url, jupyter_token, kernel, needs, local_pid=None)
    elif embedded:
        report = SetupReport("embedded", "--embedded (or MCP_VARIANTS_EMBEDDED) keeps it, whatever Jupyter server runs", findings)
        _embedded_kernel(report, kernel, needs)
    elif found is not None:
        report = SetupReport("remote", f"{found.describe()} serves {root}: the notebooks are that server's, "
                                       "live in its JupyterLab where it has real-time collaboration", findings)
        findings.append(_collaboration(found))
        if (endpoint := _mcp_endpoint(found)) is not None:
            findings.append(Observation("extension", None, f"that server also serves MCP itself at {endpoint} (mcp-variants is "
                                                       "installed in its environment): a client may use it directly, or "
                                                       f"through `mcp-variants connect {endpoint}`"))
        _remote_kernel(report, found.url, found.token, kernel, needs, local_pid=found.pid)
    else:
        report = SetupReport("embedded", f"no Jupyter server of this user serves {root}: the server runs kernels of its own "
                                         "and writes the .ipynb files itself (not live in JupyterLab); start JupyterLab on "
                                         "that folder to work in it live", findings)
        _embedded_kernel(report, kernel, needs)
    findings.append(_logs(report.runtime, audit_log))
    return report


def _jupyter_servers(root: Path) -> tuple[RunningServer | None, list[str]]:
    """The running Jupyter server of this user that `serve` would use for `root` (None: none counts), and a line for
    each one found: discovery's reason, then whether it is used."""
    findings = survey(root)
    chosen = next((finding.server for finding in findings if finding.counts), None)
    said = []
    for finding in findings:
        if finding.server is chosen:
            verdict = "so it counts"
        elif finding.counts and chosen is not None:
            verdict = f"but {chosen.describe()} is used (the nearer root, or the newer)"
        else:
            verdict = "so it is not used"
        said.append(f"{finding.server.describe()}: {finding.reason}, {verdict}")
    return chosen, said


def _collaboration(server: RunningServer) -> Observation:
    """Whether the server has real-time collaboration (jupyter-collaboration): its session API exists or not."""
    import httpx

    try:
        status = httpx.get(f"{server.url.rstrip('/')}/api/collaboration/session/x.ipynb", headers=token_headers(server.token),
                           timeout=HTTP_TIMEOUT_S).status_code
    except httpx.HTTPError as exc:
        return Observation("live", False, f"{server.url} did not answer: {type(exc).__name__}")
    if status == 404:
        return Observation("live", None, "that server has no real-time collaboration: notebooks open in JupyterLab do not show "
                                      "the agent's edits as they are made; install jupyter-collaboration into its environment")
    return Observation("live", True, "that server has real-time collaboration: a notebook open in its JupyterLab shows every "
                                 "edit as it is made, and shares its kernel")


def _mcp_endpoint(server: RunningServer) -> str | None:
    """The server's own MCP endpoint (the extension's `{base_url}mcp`), if it has one: any answer but 404 to a GET."""
    import httpx

    url = f"{server.url.rstrip('/')}/mcp"
    try:
        status = httpx.get(url, headers=token_headers(server.token), timeout=HTTP_TIMEOUT_S).status_code
    except httpx.HTTPError:
        return None
    return None if status == 404 else url


def _embedded_kernel(report: SetupReport, kernel: str, needs: Sequence[str]) -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    from .embedded import kernel_interpreter

    specs = KernelSpecManager()
    try:
        spec = specs.get_kernel_spec(kernel)
    except NoSuchKernel:
        names = ", ".join(sorted(specs.find_kernel_specs()))
        report.findings.append(Observation("kernel", False, f"no kernelspec {kernel!r} (there are: {names}); register your "
                                                        "environment: /path/to/env/bin/python -m ipykernel install --user "
                                                        f"--name {kernel}"))
        return
    _python_kernel(report, kernel, kernel_interpreter(spec), needs)


def _remote_kernel(report: SetupReport, url: str, token: str | None, kernel: str, needs: Sequence[str], local_pid: int | None) -> None:
    """The kernelspec on the Jupyter server; its packages are checked where its Python is on this machine."""
    import httpx

    try:
        response = httpx.get(f"{url.rstrip('/')}/api/kernelspecs", headers=token_headers(token), timeout=HTTP_TIMEOUT_S)
        specs = response.json() if response.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        specs = {}
    known = specs.get("kernelspecs") or {}
    if not known:
        report.findings.append(Observation("kernel", None, f"the kernelspecs of {url} could not be read"))
        return
    name = kernel if kernel in known else str(specs.get("default") or kernel)
    spec = (known.get(name) or {}).get("spec") or {}
    if kernel not in known:
        report.findings.append(Observation("kernel", None, f"{url} has no kernelspec {kernel!r}; a kernel there starts as its "
                                                       f"default, {name!r} (there are: {', '.join(sorted(known))})"))
    argv = spec.get("argv") or []
    python = ""
    if str(spec.get("language", "")).lower() == "python" and argv:
        python = str(argv[0])
        if not Path(python).is_absolute():  # 'python': jupyter_client runs the Jupyter server's own interpreter
            python = _server_python(local_pid) or ""
        elif not Path(python).is_file():  # a server on another machine: its Python is not here to ask
            python = ""
    _python_kernel(report, name, python, needs, server_side=True)


def _server_python(pid: int | None) -> str | None:
    if pid is None:
        return None
    import psutil

    try:  # as it was started (a venv's bin/python): exe() is where its links lead, outside the venv
        process = psutil.Process(pid)
        started = process.cmdline()[:1]
        return started[0] if started and Path(started[0]).is_absolute() else str(process.exe())
    except psutil.Error:
        return None


def _python_kernel(report: SetupReport, kernel: str, python: str, needs: Sequence[str], server_side: bool = False) -> None:
    where = "the Jupyter server's" if server_side else "this server's"
    if not python:
        report.findings.append(Observation("kernel", None, f"{kernel!r}: not a Python kernel on this machine, so its packages "
                                                       "cannot be checked without running it"))
        return
    own = not server_side and Path(python).resolve() == Path(sys.executable).resolve()
    whose = (f"the server's own environment ({python}): your packages are there only if you installed them there; "
             "--kernel NAME runs your environment" if own else f"{python}")
    report.findings.append(Observation("kernel", True, f"{kernel!r} ({where} kernelspec) runs {whose}"))
    if not needs:
        return
    try:
        done = subprocess.run([python, "-c", FIND_PACKAGES, *needs], capture_output=True, text=True, timeout=PACKAGE_CHECK_TIMEOUT_S)
        found: dict[str, str | None] = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        report.findings.append(Observation("packages", False, f"{python} could not be asked for its packages: {exc}"))
        return
    for name in needs:
        version = found.get(name)
        if version is None:
            report.findings.append(Observation("package", False, f"{name} is not in {python}'s environment: "
                                                             f"{python} -m pip install {name}, or --kernel for an environment that has it"))
        else:
            report.findings.append(Observation("package", True, f"{name} {version}".rstrip() + f" in {python}'s environment"))


def _logs(runtime: str, audit_log: str | None) -> Observation:
    said = ("over stdio the server's messages go to its stderr, which a desktop client keeps in its log of the server "
            "(Claude Desktop: ~/Library/Logs/Claude/mcp-server-NAME.log on macOS, %APPDATA%\\Claude\\logs on Windows, "
            "~/.config/Claude/logs on Linux; VS Code and Cursor: the Output panel); --log-level INFO says more")
    if audit_log:
        said += f"; one line per tool call in {audit_log}"
    if runtime == "remote":
        said += "; the Jupyter server logs its kernels and rooms where it was started (its terminal)"
    return Observation("logs", None, said)


__all__ = ["Observation", "SetupReport", "diagnose"]
