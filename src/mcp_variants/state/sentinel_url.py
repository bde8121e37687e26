"""A Redis Sentinel deployment named by one URL, for `--state-url`:

    redis+sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB][?sentinel_password=SECRET]

The hosts are the sentinels (port 26379 unless given), SERVICE the name they monitor the primary by (`sentinel
monitor SERVICE ...`), DB the database on it (0 unless given). USER and PASSWORD are the primary's (and its replicas'),
as in `redis://`; sentinels that need a password of their own (`requirepass` in sentinel.conf) take it as
`sentinel_password`, and are asked without one otherwise. Pure: no I/O, no redis import.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379
FORM = f"{SCHEME}://:PASSWORD@HOST:26379,HOST:26379/SERVICE/DB"


@dataclass(frozen=True)
class SentinelAddress:
    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_password: str | None = None

    def where(self) -> str:
        """For messages: the sentinels and the service, no password."""
        hosts = ",".join(f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in self.sentinels)
        return f"{SCHEME}://{hosts}/{self.service}"


def sentinel_address(url: str) -> SentinelAddress | None:
    """The deployment `url` names when it is a `redis+sentinel://` URL, None for any other scheme; ValueError saying what
    is wrong with one that is (never quoting a password)."""
    parts = urlsplit(url)
    if parts.scheme != SCHEME:
        return None
    userinfo, at, hosts = parts.netloc.rpartition("@")
    username = password = None
    if at:
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else None
    sentinels = tuple(_host_port(host) for host in hosts.split(",") if host)
    if not sentinels:
        raise ValueError(f"names no sentinel: write it as {FORM}")
    path = [part for part in parts.path.split("/") if part]
    if not path or len(path) > 2:
        raise ValueError(f"needs the service's name after the sentinels (and at most a database number): write it as {FORM}")
    if len(path) == 2 and not path[1].isdigit():
        raise ValueError(f"has {path[1]!r} where the database number goes: write it as {FORM}")
    query = parse_qs(parts.query, keep_blank_values=True)
    if unknown := sorted(set(query) - {"sentinel_password"}):
        raise ValueError(f"has parameters a Sentinel URL does not take ({', '.join(unknown)}): only sentinel_password")
    sentinel_password = query["sentinel_password"][-1] if "sentinel_password" in query else None
    return SentinelAddress(sentinels, unquote(path[0]), int(path[1]) if len(path) == 2 else 0, username, password,
                           sentinel_password or None)


def _host_port(host: str) -> tuple[str, int]:
    if host.startswith("["):  # [IPv6]:port
        name, _, rest = host[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        name, _, port = host.partition(":")
    if not name or (port and not port.isdigit()):
        raise ValueError(f"has a sentinel address that is not HOST[:PORT] ({host!r}): write it as {FORM}")
    return name, int(port) if port else SENTINEL_PORT
