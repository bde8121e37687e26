"""A real `redis-server` (Debian's) on a free loopback port, with a password, stopped by PID.

Its data is written as it changes (append-only file, fsync always) in a folder of the test's, so a restart on the
same port (`stop()`, then `start()`) comes back with every key, as a Redis with persistence does after a crash.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest

from mcp_variants.processes import ServerProcess, free_port

REDIS_SERVER = "/usr/bin/redis-server"


def require_redis() -> None:
    """Skip the test without Debian's redis-server, or fail it under `make test` (MCP_VARIANTS_REDIS=required)."""
    if shutil.which(REDIS_SERVER) is not None:
        return
    reason = f"{REDIS_SERVER} is missing: tests/integration/install-redis.sh installs it"
    if os.environ.get("MCP_VARIANTS_REDIS") == "required":
        pytest.fail(f"required for the shared-state tests: {reason}")
    pytest.skip(reason)


class RedisServer(ServerProcess):
    def __init__(self, folder: Path) -> None:
        port = free_port()
        self.password = secrets.token_hex(8)
        argv = [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--requirepass", self.password, "--dir", str(folder),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                "--maxmemory-policy", "noeviction", "--protected-mode", "yes"]
        super().__init__(argv, port, cwd=folder, log=folder / "redis.log")
        self.url = f"redis://:{self.password}@127.0.0.1:{port}/0"
