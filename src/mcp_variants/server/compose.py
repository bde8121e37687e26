"""The server composed once: one frozen configuration from either host, and every object made from it here.

`ServerConfig` holds the options (server/options.py) that shape what is served, whoever hosts it: `mcp-variants
serve` makes it from its command line, the Jupyter server extension from its traitlets (`from_options` reads
either by name; an option a host lacks keeps its default). `compose` makes the state the handlers need from it
(the tools, the limits, the image policy, the audit trail, the stores) on the runtimes the host gives;
`open_shared_store` reaches and checks the shared state store before anything starts, and `http_limits` is what
the HTTP transport keeps to. What only one host has (the CLI's address and runtimes, the extension's endpoint)
stays that host's. A problem is `CannotStart`, one line that each host says its own way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..images import ImageMode, ImagePolicy
from ..jupyter.atomic_files import start_removing_stale_temporaries
from ..jupyter.embedded import EmbeddedRuntime
from ..jupyter.found_servers import JupyterFinder
from ..jupyter.local_contents import LocalContents
from ..jupyter.registry import EMBEDDED, RuntimeRegistry
from ..jupyter.runtime import Backend
from ..limits import Limits
from ..output_links import OutputStore
from ..sdk import HttpLimits
from ..sdk.tasks import MemoryTaskStore, TaskStore
from .app import ServerState, load_tools
from .audit import AuditLog
from .image_resources import ImageResources
from .notebook_resources import NotebookResources
from .observe import CallObserver
from .options import OPTIONS
from .output_resources import CellOutputResources, RunOutputResources
from .resources import Resources
from .subscriptions import Subscriptions
from .view_resources import ViewResources

if TYPE_CHECKING:
    from ..images import ImageStore
    from ..state.redis_client import RedisNamespace


def _option(name: str) -> Any:
    """A field whose default is the option's (server/options.py): written once, there."""
    return field(default=OPTIONS[name].default)


class CannotStart(Exception):
    """What stops the server from starting, in one line."""


@dataclass(frozen=True)
class ServerConfig:
    """The options that shape what is served, as one host resolved them. Each field is the option of its name."""

    timeout: float = _option("timeout")
    output_cap: int = _option("output_cap")
    hard_cap: int = _option("hard_cap")
    kernel: str = _option("kernel")
    images: str = _option("images")
    image_max_pixels: int = _option("image_max_pixels")
    compat: str | None = _option("compat")
    agent_name: str = _option("agent_name")
    max_message_bytes: int = _option("max_message_bytes")
    session_idle_timeout: float = _option("session_idle_timeout")
    max_sessions: int = _option("max_sessions")
    read_timeout: float = _option("read_timeout")
    max_connections: int = _option("max_connections")
    audit_log: str | None = _option("audit_log")
    audit_content: bool = _option("audit_content")
    state_url: str | None = _option("state_url")
    state_namespace: str = _option("state_namespace")
    state_timeout: float = _option("state_timeout")

    @classmethod
    def from_options(cls, source: Any) -> ServerConfig:
        """From whatever holds the options as attributes of their names: `serve`'s parsed arguments, the extension's
        traitlets. An option `source` lacks keeps its default; an empty text (a traitlet's "unset") is None."""
        given: dict[str, Any] = {}
        for name in (f.name for f in fields(cls) if hasattr(source, f.name)):
            value = getattr(source, name)
            given[name] = None if value == "" and OPTIONS[name].default is None else value
        return cls(**given)

    def limits(self) -> Limits:
        return Limits(default_timeout=self.timeout, assistant_text_bytes=self.output_cap, hard_cap_bytes=self.hard_cap)

    def http_limits(self) -> HttpLimits:
        return HttpLimits(max_body_bytes=self.max_message_bytes, session_idle_timeout=self.session_idle_timeout,
                          max_sessions=self.max_sessions, read_timeout=self.read_timeout, max_connections=self.max_connections)

    def image_policy(self) -> ImagePolicy:
        return ImagePolicy(ImageMode(self.images), max(self.image_max_pixels, 0))


def open_shared_store(config: ServerConfig) -> RedisNamespace | None:
    """The shared state store of `state_url`, reached and checked now (None without one): the server does not start
    on a store it cannot use."""
    if not config.state_url:
        return None
    try:
        from ..state.redis_client import RedisNamespace
    except ImportError:
        raise CannotStart("--state-url needs the redis package: install the server with its redis extra "
                          "('.[redis]' from a clone)") from None
    store = RedisNamespace(config.state_url, config.state_namespace, config.state_timeout)
    if problem := store.check():
        raise CannotStart(problem)
    return store


def compose(config: ServerConfig, runtimes: Callable[[Limits], RuntimeRegistry], shared: RedisNamespace | None = None) -> ServerState:
    """Every object the handlers need, made from `config`: the tools (checked; DeclarationError stops the server),
    the limits, the image policy, the audit trail, the runtimes the host gives (`runtimes`, told the limits), the
    resources and subscriptions; tasks, run outputs and image links in this process's memory, or on `shared`."""
    limits = config.limits()
    try:
        audit = AuditLog.open(config.audit_log) if config.audit_log else None
    except OSError as exc:
        raise CannotStart(f"the audit log cannot be opened: {exc}") from None
    observer = CallObserver(audit, content=config.audit_content)
    tools = load_tools(observer, config.compat)
    registry = runtimes(limits)
    images = config.image_policy()
    tasks: TaskStore = MemoryTaskStore()
    outputs = OutputStore()
    if shared is not None:
        tasks, outputs, image_store = _shared_stores(shared)
        images = replace(images, store=image_store)
    resources = Resources([ViewResources(), NotebookResources(registry), ImageResources(images.store), RunOutputResources(outputs),
                           CellOutputResources(registry)])
    return ServerState(tools=tools, registry=registry, limits=limits, images=images, resources=resources,
                       subscriptions=Subscriptions(resources.owner), observer=observer, tasks=tasks, outputs=outputs,
                       agent_name=config.agent_name)


def _shared_stores(shared: RedisNamespace) -> tuple[TaskStore, OutputStore, ImageStore]:
    """The stores on Redis, imported only when asked for (the `redis` extra)."""
    from ..state.redis_images import RedisImageStore
    from ..state.redis_outputs import RedisOutputStore
    from ..state.redis_tasks import RedisTaskStore

    return RedisTaskStore(shared), RedisOutputStore(shared), RedisImageStore(shared)


def local_runtimes(root: Path, limits: Limits, *, kernel_name: str = "python3", jupyter_url: str | None = None,
                   jupyter_token: str | None = None, gateway_url: str | None = None,
                   gateway_token: str | None = None, find_jupyter: bool = False) -> RuntimeRegistry:
    """`serve`'s runtimes: the embedded one on `root`, and by default that one, or (`jupyter_url`) a Jupyter server,
    or (`gateway_url`) an Enterprise Gateway's kernels with the notebooks on the Jupyter server or under `root`.
    `kernel_name` is the default kernelspec; ToolError when the embedded runtime, the default, does not have it.
    With `find_jupyter` (and neither URL), each call looks for a Jupyter server this user runs on `root` or above it
    and works through it while there is one (jupyter/found_servers.py)."""
    start_removing_stale_temporaries(root)
    runtime = EmbeddedRuntime(root, kernel_name=kernel_name, hard_cap_bytes=limits.hard_cap_bytes)
    registry = RuntimeRegistry({EMBEDDED: Backend(EMBEDDED, "the embedded kernels", runtime, LocalContents(root))})
    # The remote runtimes are imported only when asked for: they pull in httpx, websockets and pycrdt.
    if gateway_url:
        from ..jupyter.server_backend import gateway_backend

        backend = gateway_backend(gateway_url, gateway_token, root=root, jupyter_url=jupyter_url, jupyter_token=jupyter_token,
                                  kernel_name=kernel_name, hard_cap_bytes=limits.hard_cap_bytes)
        registry.add_backend(backend, default=True)
    elif jupyter_url:
        from ..jupyter.server_backend import REMOTE, remote_backend

        registry.add_backend(remote_backend(REMOTE, jupyter_url, jupyter_token, hard_cap_bytes=limits.hard_cap_bytes,
                                            kernel_name=kernel_name), default=True)
    else:
        runtime.check_kernel_name()
        if find_jupyter:
            registry.finder = JupyterFinder(root, kernel_name=kernel_name, hard_cap_bytes=limits.hard_cap_bytes)
    return registry
