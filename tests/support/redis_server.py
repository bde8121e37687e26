"""A real `redis-server` (Debian's) on a free loopback port, with a password, stopped by PID.

Its data is written as it changes (append-only file, fsync always) in a folder of the test's, so a restart on the
same port (`stop()`, then `start()`) comes back with every key, as a Redis with persistence does after a crash.
`freeze()` stops the process (SIGSTOP) as a stalled host or a partition would: its port still accepts connections and
nothing answers; `thaw()` lets it go on. With `tls`, it serves TLS only, with a certificate of a CA made for the test
(`ca`, by Debian's openssl); `extra` adds redis-server arguments (`--cluster-enabled yes`, say). With `replica_of`, it
is that primary's replica, with its password (every node of a deployment has the same, so any can be promoted).

`SentinelServer` is Debian's redis-sentinel watching a primary under a service name, quick to judge it down and to
fail over (`down-after-milliseconds` 1000, `failover-timeout` 3000), with a password of its own if given; `sentinel_url`
names it as `--state-url` takes it.
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
REDIS_SENTINEL = "/usr/bin/redis-sentinel"


def require_redis(binary: str = REDIS_SERVER) -> None:
    """Skip the test without Debian's redis-server (or `binary`, redis-sentinel), or fail it under `make test`
    (MCP_VARIANTS_REDIS=required)."""
    if shutil.which(binary) is not None:
        return
    reason = f"{binary} is missing: tests/integration/install-redis.sh installs it"
    if os.environ.get("MCP_VARIANTS_REDIS") == "required":
        pytest.fail(f"required for the shared-state tests: {reason}")
    pytest.skip(reason)


class RedisServer(ServerProcess):
    def __init__(self, folder: Path, *, tls: bool = False, extra: Sequence[str] = (), replica_of: RedisServer | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        self.password = replica_of.password if replica_of is not None else secrets.token_hex(8)
        if replica_of is not None:
            extra = ["--replicaof", "127.0.0.1", str(replica_of.port), *extra]
        listen = ["--port", str(port)]
        self.ca: Path | None = None
        if tls:
            self.ca, cert, key = certificates(folder)
            listen = ["--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert), "--tls-key-file", str(key),
                      "--tls-ca-cert-file", str(self.ca), "--tls-auth-clients", "no"]
        argv = [REDIS_SERVER, "--bind", "127.0.0.1", *listen, "--requirepass", self.password, "--dir", str(folder),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                "--maxmemory-policy", "noeviction", "--protected-mode", "yes", "--masterauth", self.password, *extra]
        super().__init__(argv, port, cwd=folder, log=folder / "redis.log")
        scheme, query = ("rediss", f"?ssl_ca_certs={self.ca}") if tls else ("redis", "")
        self.url = f"{scheme}://:{self.password}@127.0.0.1:{port}/0{query}"

    def freeze(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


class SentinelServer(ServerProcess):
    def __init__(self, folder: Path, primary: RedisServer, service: str, *, password: str | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        config = folder / "sentinel.conf"  # the sentinel rewrites it as it learns the deployment
        config.write_text("\n".join([
            "bind 127.0.0.1", f"port {port}", f"dir {folder}",
            f"sentinel monitor {service} 127.0.0.1 {primary.port} 1",
            f"sentinel auth-pass {service} {primary.password}",
            f"sentinel down-after-milliseconds {service} 1000",
            f"sentinel failover-timeout {service} 3000",
            *([f"requirepass {password}"] if password else []),
        ]) + "\n")
        super().__init__([REDIS_SENTINEL, str(config)], port, cwd=folder, log=folder / "sentinel.log")
        self.service = service


def sentinel_url(password: str, sentinels: Sequence[int], service: str) -> str:
    return f"redis+sentinel://:{password}@{','.join(f'127.0.0.1:{port}' for port in sentinels)}/{service}/0"


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
