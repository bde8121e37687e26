"""connect_to_jupyter: run this client's code, notebooks and files on a Jupyter server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog import declared
from ..jupyter.runtime import Backend
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.runtimes import STATELESS_NOTE
from .shared.tool_context import ToolContext

if TYPE_CHECKING:
    from ..jupyter.remote.server_client import JupyterServerClient


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    # On first use: the remote runtime imports httpx, websockets and pycrdt, which a server that never
    # connects (or only lists its tools) should not pay for at start-up.
    from ..jupyter.remote.server_client import JupyterServerClient, split_url
    from ..jupyter.server_backend import REMOTE, http_server_backend, remote_key

    provider = args.get("document_provider", "jupyter")
    if provider != "jupyter":
        raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                        f"document_provider {provider!r} is not served here: notebooks are kept in the Jupyter server's contents "
                        "(document_provider 'jupyter', the default), or under --root by the embedded runtime.")
    url, url_token = split_url(args["url"])
    token = args.get("token") or url_token
    server = JupyterServerClient(url, token)
    try:
        status = await server.status()  # answers, and accepts the token
    finally:
        await server.aclose()
    registry = ctx.registry
    status_text = (f"The Jupyter server at {url} answers (Jupyter Server {status.get('version') or 'unknown version'}, "
                   f"{status.get('kernels', 0)} kernels running).")
    given = registry.backends.get(REMOTE)  # the --jupyter-url server: reuse it rather than start a twin
    key = REMOTE if given is not None and _server(given).url == url else remote_key(url)
    record = {"url": url, "runtime": key, "serverVersion": status.get("version", ""), "kernels": int(status.get("kernels", 0)),
              "switched": ctx.client.persistent}
    if not ctx.client.persistent:
        return Outcome(value=Message("jupyter.connect", status_text + STATELESS_NOTE, record))
    backend = registry.backends.get(key)
    if backend is None:
        registry.add_backend(http_server_backend(key, JupyterServerClient(url, token), label=f"the Jupyter server at {url}",
                                       hard_cap_bytes=ctx.limits.hard_cap_bytes))
    elif not _server(backend).same_token(token):
        _server(backend).set_token(token)  # same server, a token that works now
    ctx.client.run_on(key)
    text = status_text + " This client's code, notebooks and files now live there; other clients are not affected."
    return Outcome(value=Message("jupyter.connect", text, record))


def _server(backend: Backend) -> JupyterServerClient:
    from ..jupyter.remote.kernels import RemoteKernels

    kernels = backend.kernels
    assert isinstance(kernels, RemoteKernels)
    return kernels.server


TOOL = VariantTool(declared("connect_to_jupyter"), MESSAGE_PROJECTORS, run)
