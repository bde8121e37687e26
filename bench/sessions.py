"""What an abandoned HTTP session costs: memory while it is open, what stays once it expired, and the cap.

First, rounds of N sessions opened (initialize, notifications/initialized) and left open, within the
default idle timeout: the server's memory (USS: what it alone holds) after each round; what the
later rounds add is what an open abandoned session holds (the first pays for what any session costs
once: allocator arenas, caches). Then `serve --http --session-idle-timeout 1`; rounds of N sessions,
each opened, used once (tools/call list_kernels, so that the runtime registry holds state for it) and abandoned
(never DELETE); the memory once every session of the round expired: what the later rounds add is what
an expired session keeps. Then with --max-sessions M, 3M sessions are opened one after another: each
beyond M ends the least recently used idle one, memory bounded.

Run alone: python -m bench.sessions [--sessions N] [--rounds R]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.processes import ServerProcess, free_port

from . import cli

VERSION = "2025-11-25"
EXPIRY_WAIT_S = 2.5  # the idle timeout (1 s), then the SDK's sweep
SETTLE_S = 0.5  # for the last requests of a round to finish


def rounds(text: str) -> int:
    """An argparse type: at least 2 rounds, since what a session costs is what the rounds after the first add."""
    value = int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"at least 2 (the first round is the baseline the others are measured against), not {value}")
    return value


def _server(root: Path, *options: str) -> tuple[ServerProcess, HttpTarget]:
    port = free_port()
    server = ServerProcess([sys.executable, "-m", "mcp_variants", "serve", "--http", "--port", str(port), "--root", str(root), *options],
                           port, cwd=root)
    server.start(60)
    return server, HttpTarget(f"http://127.0.0.1:{port}/mcp")


def _memory(server: ServerProcess) -> int:
    return int(psutil.Process(server.pid).memory_full_info().uss)


def _abandon(target: HttpTarget, count: int) -> int:
    """Open, use and abandon `count` sessions; the number admitted."""
    admitted = 0
    for _ in range(count):
        session, opened = target.open_session(VERSION, None)
        if opened.status != 200 or not session:
            continue
        admitted += 1
        target.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_kernels", "arguments": {}}},
                    {"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION})
    return admitted


def _leave_open(target: HttpTarget, count: int) -> None:
    """Open `count` sessions and leave them open."""
    for _ in range(count):
        session, opened = target.open_session(VERSION, None)
        assert session and opened.status == 200, opened.raw[:300]


def run(sessions: int = 300, rounds: int = 4, cap: int = 100) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mcpv-sessions-") as tmp:
        root = Path(tmp)
        server, target = _server(root, "--max-sessions", str(sessions * rounds))
        try:
            with_open = []
            for _ in range(rounds):
                _leave_open(target, sessions)
                time.sleep(SETTLE_S)
                with_open.append(_memory(server))
        finally:
            server.stop()
        server, target = _server(root, "--session-idle-timeout", "1", "--max-sessions", str(sessions * 2))
        try:
            start = _memory(server)
            alive, after = [], []
            for _ in range(rounds):
                before = _memory(server)
                _abandon(target, sessions)
                alive.append(_memory(server) - before)
                time.sleep(EXPIRY_WAIT_S)
                after.append(_memory(server))
        finally:
            server.stop()
        server, target = _server(root, "--session-idle-timeout", "600", "--max-sessions", str(cap))
        try:
            before = _memory(server)
            admitted = _abandon(target, cap * 3)
            capped_growth = _memory(server) - before
        finally:
            server.stop()
    kept = (after[-1] - after[0]) / ((rounds - 1) * sessions)
    held = (with_open[-1] - with_open[0]) / ((rounds - 1) * sessions)
    return {
        "sessions_per_round": sessions,
        "rounds": rounds,
        "memory_with_open_sessions_bytes": with_open,
        "open_bytes_per_session": round(held),
        "memory_at_start_bytes": start,
        "memory_after_each_round_bytes": after,
        "alive_bytes_per_session": [round(a / sessions) for a in alive],
        "kept_bytes_per_expired_session": round(kept),
        "goal": "under 20 KB kept per abandoned session after expiry, and a capped total",
        "within_goal": kept < 20 * 1024,
        "cap": {"max_sessions": cap, "opened": cap * 3, "admitted": admitted, "memory_growth_bytes": capped_growth},
    }


def format_report(report: dict[str, Any]) -> str:
    cap = report["cap"]
    return "\n".join([
        f"Abandoned HTTP sessions ({report['rounds']} rounds of {report['sessions_per_round']})",
        f"  open (never ended, within the idle timeout): {report['open_bytes_per_session'] / 1024:.1f} KB a session",
        "  with --session-idle-timeout 1:",
        f"    alive: {', '.join(f'{b / 1024:.1f}' for b in report['alive_bytes_per_session'])} KB a session (each round)",
        f"    kept once expired: {report['kept_bytes_per_expired_session'] / 1024:.2f} KB a session "
        f"({'ok' if report['within_goal'] else 'OVER THE GOAL'}: {report['goal']})",
        f"  --max-sessions {cap['max_sessions']}: {cap['opened']} opened, {cap['admitted']} admitted, "
        f"memory +{cap['memory_growth_bytes'] / 1024 / 1024:.1f} MB",
    ])


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--sessions", type=int, default=300, help="sessions per round (default 300)")
    parser.add_argument("--rounds", type=rounds, default=4, help="rounds (default 4)")
    args = parser.parse_args()
    report = run(args.sessions, args.rounds)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
