"""Jupyter's own engines for scaling out, real and on loopback: a Jupyter Enterprise Gateway and a
JupyterHub, each in an environment of its own (support.envs: made once with pip, reused).

- `GatewayProcess`: jupyter-enterprise-gateway with its local process proxy (kernels as local
  processes, as its YARN, Kubernetes or Docker proxies would run them elsewhere). Its
  environment pins jupyter-server 1.x and jupyter_client 6.x, which the project's cannot share.
- `HubProcess`: JupyterHub with configurable-http-proxy (tests/jupyterhub, npm ci), the
  DummyAuthenticator (any password) and SimpleLocalProcessSpawner (every user's server a
  jupyterhub-singleuser process of this user, under the Hub's folder). A service token of
  the tests' own (admin:users, admin:servers, tokens) creates users, their tokens, and starts
  and stops their servers, as an administrator or the idle culler would.

Both run in a session of their own and are stopped by PID with everything they started. As root,
the gateway is told not to refuse root (its unauthorized_users is root by default) and the
single-user servers get --allow-root; as another user neither is needed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_variants.jupyter.server_launcher import TokenServerProcess
from mcp_variants.processes import LOOPBACK, free_port, tls_context
from support.envs import cached_venv, unavailable
from support.waiting import within

GATEWAY_REQUIREMENTS = ("jupyter_enterprise_gateway==3.3.0", "ipykernel>=6.29")
HUB_REQUIREMENTS = ("jupyterhub==6.1.1", "jupyter-server>=2.14", "ipykernel>=6.29")
PROXY = Path(__file__).resolve().parents[1] / "jupyterhub" / "node_modules" / ".bin" / "configurable-http-proxy"
REPO = Path(__file__).resolve().parents[2]
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
START_TIMEOUT = 90.0


def _base_env(folder: Path) -> dict[str, str]:
    """This environment without our tokens, with Jupyter's folders in `folder` (no user configuration read)."""
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_TOKEN", "JUPYTER_GATEWAY_AUTH_TOKEN", "MCP_VARIANTS_TOKEN")}
    env.update(JUPYTER_CONFIG_DIR=str(folder / "config"), JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
               JUPYTER_DATA_DIR=str(folder / "data"), JUPYTER_NO_CONFIG="1")
    return env


class GatewayProcess(TokenServerProcess):
    """jupyter-enterprise-gateway on 127.0.0.1 in `folder`, its token in its environment (EG_AUTH_TOKEN), listing
    its kernels allowed (EG_LIST_KERNELS). Ready once /api/kernelspecs answers 200 to the token."""

    def __init__(self, folder: Path, env_dir: Path) -> None:
        self.folder = folder
        self.token = secrets.token_hex(32)
        folder.mkdir(parents=True, exist_ok=True)
        env = _base_env(folder)
        env.update(EG_AUTH_TOKEN=self.token, EG_LIST_KERNELS="True")
        if AS_ROOT:
            env["EG_UNAUTHORIZED_USERS"] = "nobody-is-refused"  # root is refused by default
        port = free_port()
        argv = [str(env_dir / "bin" / "python"), "-m", "enterprise_gateway", f"--ip={LOOPBACK}", f"--port={port}",
                "--port_retries=0"]
        super().__init__(argv, port, cwd=folder, env=env, log=folder / "gateway.log", new_session=True)

    def ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}api/kernelspecs", headers=self.auth_headers, timeout=2, verify=tls_context()).status_code == 200
        except httpx.HTTPError:
            return False

    def kernel_ids(self) -> set[str]:
        response = httpx.get(f"{self.url}api/kernels", headers=self.auth_headers, timeout=10)
        response.raise_for_status()
        return {kernel["id"] for kernel in response.json()}

    def output(self) -> str:
        return super().output().replace(self.token, "***")


HUB_CONFIG = '''\
# Written by tests/support/scale.py for one JupyterHub on loopback.
import os

c = get_config()  # noqa: F821 - JupyterHub's config loader defines it
here = os.path.dirname(os.path.abspath(__file__))
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = os.path.join(here, "proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(here, "hub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(here, "cookie_secret")
c.JupyterHub.pid_file = os.path.join(here, "hub.pid")
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(here, "users", "{{username}}")
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {spawner_args!r}
c.Spawner.start_timeout = 60
# Each spawn on one of these ports, taken by free_port below the ephemeral range as every server of the tests is:
# JupyterHub's own choice comes from that range, where a kernel's ZMQ socket or an outgoing connection can hold it
# first (CI: "port 43647 is not available", and the spawn answered 500). When they run out, JupyterHub's choice.
spawn_ports = {spawn_ports!r}


def take_a_port(spawner):
    spawner.port = spawn_ports.pop() if spawn_ports else 0


c.Spawner.pre_spawn_hook = take_a_port
c.JupyterHub.services = [{{"name": "tests", "api_token": os.environ["MCP_VARIANTS_HUB_SERVICE_TOKEN"]}}]
c.JupyterHub.load_roles = [{{"name": "tests", "scopes": ["admin:users", "admin:servers", "tokens"], "services": ["tests"]}}]
'''


SPAWN_PORTS = 8  # users' servers a Hub of the tests starts, restarts included, at most (more get JupyterHub's choice)


class HubProcess(TokenServerProcess):
    """JupyterHub on 127.0.0.1 in `folder` (its database, cookie secret, users' homes and log there). Ready once its
    proxy routes /hub/api to it. Its token is the tests' service token, in its environment only."""

    def __init__(self, folder: Path, env_dir: Path, *, singleuser_args: Sequence[str] = (), config: str = "") -> None:
        self.folder = folder
        self.token = secrets.token_hex(32)
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        hub_config = HUB_CONFIG.format(port=port, hub_port=free_port(), proxy_api_port=free_port(), proxy=str(PROXY),
                                   spawn_ports=[free_port() for _ in range(SPAWN_PORTS)],
                                   singleuser=str(env_dir / "bin" / "jupyterhub-singleuser"),
                                   spawner_args=[*(["--allow-root"] if AS_ROOT else []), *singleuser_args])
        (folder / "jupyterhub_config.py").write_text(hub_config + config)
        env = _base_env(folder)
        env["MCP_VARIANTS_HUB_SERVICE_TOKEN"] = self.token
        env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # its singleuser servers' kernels: that Python
        super().__init__([str(env_dir / "bin" / "jupyterhub"), "-f", str(folder / "jupyterhub_config.py")], port,
                         cwd=folder, env=env, log=folder / "hub.log", new_session=True)
        self.http = httpx.Client(base_url=f"{self.url}hub/api/", headers=self.auth_headers, timeout=30)

    def user_url(self, name: str) -> str:
        return f"{self.url}user/{name}/"

    def ready(self) -> bool:
        try:
            return self.http.get("").status_code == 200
        except httpx.HTTPError:
            return False

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = self.http.request(method, path, **kwargs)
        assert response.status_code < 400, (method, path, response.status_code, response.text[:500])
        return response

    def add_user(self, name: str) -> None:
        if self.http.get(f"users/{name}").status_code == 404:
            self.api("POST", f"users/{name}")

    def user_token(self, name: str, scopes: list[str]) -> str:
        """A token of `name`'s with these scopes (a subset of the user's own), as the user makes one on the Hub's token page."""
        return str(self.api("POST", f"users/{name}/tokens", json={"scopes": scopes, "note": "mcp-variants tests"}).json()["token"])

    def server_ready(self, name: str) -> bool:
        server = (self.api("GET", f"users/{name}").json().get("servers") or {}).get("")
        return bool(server and server.get("ready"))

    def start_server(self, name: str, timeout: float = 60.0) -> None:
        """Spawn `name`'s server, and wait until the Hub says it is ready."""
        if not self.server_ready(name):
            self.api("POST", f"users/{name}/server")
        self._until(lambda: self.server_ready(name), timeout, f"{name}'s server did not start")

    def stop_server(self, name: str, timeout: float = 30.0) -> None:
        """Stop `name`'s server (its kernels go with it), as an administrator or the idle culler does."""
        self.api("DELETE", f"users/{name}/server")
        self._until(lambda: not (self.api("GET", f"users/{name}").json().get("servers") or {}), timeout, f"{name}'s server did not stop")

    def _until(self, condition: Any, timeout: float, failure: str) -> None:
        if within(condition, timeout, every=0.2) is None:
            raise AssertionError(f"{failure} within {timeout:g} s; the Hub's log ends with:\n{self.output()[-2000:]}")

    def stop(self, grace: float = 10.0) -> int | None:
        self.http.close()
        return super().stop(grace)

    def output(self) -> str:
        return super().output().replace(self.token, "***")


def gateway_env() -> Path:
    return cached_venv("enterprise-gateway", GATEWAY_REQUIREMENTS)


def hub_env() -> Path:
    if not PROXY.is_file():
        unavailable(f"configurable-http-proxy is not installed ({PROXY}): run tests/jupyterhub/install.sh")
    return cached_venv("jupyterhub", HUB_REQUIREMENTS)


def hub_extension_env() -> Path:
    """JupyterHub and this checkout (editable: the code under test, and the config file that turns the extension on),
    so every user's server carries the Jupyter server extension as an installed mcp-variants does."""
    if not PROXY.is_file():
        unavailable(f"configurable-http-proxy is not installed ({PROXY}): run tests/jupyterhub/install.sh")
    return cached_venv("jupyterhub-extension", (*HUB_REQUIREMENTS, f"--editable={REPO}"))


@pytest.fixture(scope="module", name="gateway")  # imported as gateway_fixture: a test's `gateway` argument does not shadow it
def gateway_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayProcess]:
    """One real Enterprise Gateway per test module, stopped by PID with its kernels."""
    with GatewayProcess(tmp_path_factory.mktemp("gateway"), gateway_env()).start(START_TIMEOUT) as process:
        yield process


@pytest.fixture(scope="module", name="jupyterhub")
def jupyterhub_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HubProcess]:
    """One real JupyterHub per test module, stopped by PID with its proxy and its users' servers."""
    with HubProcess(tmp_path_factory.mktemp("jupyterhub"), hub_env()).start(START_TIMEOUT) as process:
        yield process

