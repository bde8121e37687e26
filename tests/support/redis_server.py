"""A real `redis-server` (Debian's) on a free loopback port, with a password, stopped by PID.

Its data is written as it changes (append-only file, fsync always) in a folder of the test's, so a restart on the
same port (`restart()`) comes back with every key, as a Redis with persistence does after a crash.
"""

from __future__ import annotations

import secrets
import shutil
import time
from pathlib import Path
from typing import Self

from mcp_variants.processes import ServerProcess, free_port

REDIS_SERVER = "/usr/bin/redis-server"


def redis_missing() -> str | None:
    """Why the tests cannot start Redis, or None."""
    if shutil.which(REDIS_SERVER) is None:
        return f"{REDIS_SERVER} is missing: tests/integration/install-redis.sh installs it"
    return None


class RedisServer(ServerProcess):
    def __init__(self, folder: Path, *, maxmemory: str = "0", policy: str = "noeviction") -> None:
        port = free_port()
        self.password = secrets.token_hex(8)
        argv = [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--requirepass", self.password, "--dir", str(folder),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--maxmemory", maxmemory,
                "--maxmemory-policy", policy, "--protected-mode", "yes"]
        super().__init__(argv, port, cwd=folder, log=folder / "redis.log")
        self.url = f"redis://:{self.password}@127.0.0.1:{port}/0"

    def restart(self, down_for: float = 0.0) -> Self:
        self.stop()
        time.sleep(down_for)
        return self.start()
