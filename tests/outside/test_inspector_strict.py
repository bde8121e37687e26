"""The official MCP Inspector (@modelcontextprotocol/inspector, pinned in package.json) lists our tools with
`--cli --method tools/list --strict`, which reports tool-schema portability problems: none (issue 22: ten
warnings, `type` arrays such as ["string", "number", "integer", "null"] that one-type dialects reject; they are
anyOf branches of one type each now, the same data). Over stdio, at each protocol era the Inspector negotiates,
and with --compat jupyter-mcp-server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support.outside import node, node_env, node_package
from support.servers import serve_command

pytestmark = pytest.mark.timeout(180)

LAUNCHER = "@modelcontextprotocol/inspector/clients/launcher/build/index.js"


@pytest.mark.parametrize(("era", "extra"), [("legacy", ()), ("modern", ()), ("legacy", ("--compat", "jupyter-mcp-server"))])
def test_the_inspector_finds_no_portability_problem_in_our_schemas(tmp_path: Path, era: str, extra: tuple[str, ...]) -> None:
    command = [str(node()), str(node_package(LAUNCHER)), "--cli", *serve_command(tmp_path, "--embedded", *extra),
               "--method", "tools/list", "--strict", "--protocol-era", era,
               "--connect-timeout", "120000"]  # a hang guard, not a judgement: a loaded machine starts the server slowly
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=150, env=node_env(), check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(json.loads(done.stdout)["tools"]) >= 18
    warnings = [line for line in done.stderr.splitlines() if line.startswith("Warning")]
    assert not warnings, done.stderr[:3000]
