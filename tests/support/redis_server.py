"""A real `redis-server` (Debian's) on a free loopback port, with a password, stopped by PID.

Its data is written as it changes (append-only file, fsync always) in a folder of the test's, so a restart on the
same port (`stop()`, then `start()`) comes back with every key, as a Redis with persistence does after a crash.
`freeze()` stops the process (SIGSTOP) as a stalled host or a partition would: its port still accepts connections and
nothing answers; `thaw()` lets it go on. With `tls`, it serves TLS only, with a certificate of a CA made for the test
(`ca`, by Debian's openssl); `extra` adds redis-server arguments (`--cluster-enabled yes`, say).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
from collections.abc import Sequence
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
    def __init__(self, folder: Path, *, tls: bool = False, extra: Sequence[str] = ()) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        self.password = secrets.token_hex(8)
        listen = ["--port", str(port)]
        self.ca: Path | None = None
        if tls:
            self.ca, cert, key = certificates(folder)
            listen = ["--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert), "--tls-key-file", str(key),
                      "--tls-ca-cert-file", str(self.ca), "--tls-auth-clients", "no"]
        argv = [REDIS_SERVER, "--bind", "127.0.0.1", *listen, "--requirepass", self.password, "--dir", str(folder),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                "--maxmemory-policy", "noeviction", "--protected-mode", "yes", *extra]
        super().__init__(argv, port, cwd=folder, log=folder / "redis.log")
        scheme, query = ("rediss", f"?ssl_ca_certs={self.ca}") if tls else ("redis", "")
        self.url = f"{scheme}://:{self.password}@127.0.0.1:{port}/0{query}"

    def freeze(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signed for 127.0.0.1 with its key: (ca, certificate, key)."""
    ca, ca_key, cert, key, request = (folder / name for name in ("ca.crt", "ca.key", "server.crt", "server.key", "server.csr"))
    names = folder / "names.cnf"
    names.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for command in (["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=test CA"],
                    ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
                    ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
                     "-extfile", names]):
        subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True, timeout=60)
    return ca, cert, key
