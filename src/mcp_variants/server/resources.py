"""The server's resources, from every source: the MCP Apps views (`ui://`, apps/resources.py),
the notebooks of the client's runtime (`notebook:///`, notebook_resources.py), the images of
--images link (image_resources.py) and the outputs of runs and cells (output_resources.py).

resources/list (paged), resources/templates/list and resources/read at every version; the
notebooks also `resources/subscribe` / `resources/unsubscribe` at the handshake versions, and
`subscriptions/listen` at 2026-07-28 and later (subscriptions.py). A source is a `Source`: it says which URIs
it `owns` and `read`s them, and has defaults for the rest; a new kind of resource is a new source.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_REQUEST,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    UnsubscribeRequestParams,
)

from ..apps.resources import not_found
from ..jupyter.registry import ClientState
from ..jupyter.runtime import ChangeListener, Unwatch
from ..protocol.errors import INVALID_PARAMS, ToolError
from ..protocol.versions import STATELESS_VERSIONS, complete
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

PAGE = 100  # resources per resources/list page


def link_owner(client: ClientState) -> str:
    """Who may read the links made for `client` (its images and its runs' and cells' outputs): its connection
    (stdio) or HTTP session; a stateless request, which has no identity of its own, shares with the stateless
    requests working through the same runtime, as the notebooks it reads are that runtime's."""
    return client.key if client.key is not None else f"stateless:{client.backend_key}"


class Source(ABC):
    """One kind of resource. It must say which URIs are its own and read them; what it does not override it has
    none of (as the SDK's `Extension` defaults every contribution): nothing in resources/list (its URIs are found
    in results), no template, and nothing that changes, so nothing to watch."""

    @abstractmethod
    def owns(self, uri: str) -> bool: ...

    @abstractmethod
    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        """resources/read's result; `stateless`: a 2026-07-28 or later request, whose result carries cache hints."""

    async def entries(self, client: ClientState) -> list[dict[str, Any]]:
        """What resources/list shows of this source for `client`."""
        return []

    def templates(self) -> list[dict[str, Any]]:
        """What resources/templates/list shows of this source."""
        return []

    async def watch(self, client: ClientState, uri: str, listener: ChangeListener) -> Unwatch | None:
        """Call `listener` when `uri` changes, until the Unwatch returned is called; None: it never changes."""
        return None


class Resources:
    """Every source, in the order resources/list shows them."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)

    def owner(self, uri: str) -> Source:
        """The source of `uri`; resources/read's not-found error when none has it."""
        source = next((s for s in self.sources if s.owns(uri)), None)
        if source is None:
            raise not_found(uri)
        return source


def register_resources(server: Server[Any], resources: Resources, subscriptions: Subscriptions,
                       client_of: Callable[[ServerRequestContext[Any, Any]], ClientState]) -> None:
    """The resources handlers; `client_of` says whose runtime a request sees."""
    sources, owner = resources.sources, resources.owner

    def stamped(ctx: ServerRequestContext[Any, Any], result: dict[str, Any]) -> dict[str, Any]:
        return complete(result, ctx.protocol_version)

    async def list_resources(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        client = client_of(ctx)
        entries: list[dict[str, Any]] = []
        for source in sources:
            try:
                entries += await source.entries(client)
            except ToolError as exc:  # a runtime that does not answer: the other resources are still listed
                logger.warning("resources/list: %s", exc.message)
        cursor = params.cursor if params else None
        if cursor is not None and not cursor.isdigit():
            raise MCPError(INVALID_PARAMS, "cursor must be a nextCursor this server returned", {"cursor": cursor})
        start = int(cursor or 0)
        result: dict[str, Any] = {"resources": entries[start:start + PAGE]}
        if start + PAGE < len(entries):
            result["nextCursor"] = str(start + PAGE)
        return stamped(ctx, result)

    async def list_templates(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        return stamped(ctx, {"resourceTemplates": [t for source in sources for t in source.templates()]})

    async def read_resource(ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams) -> dict[str, Any]:
        uri = str(params.uri)
        result = await owner(uri).read(client_of(ctx), uri, stateless=ctx.protocol_version in STATELESS_VERSIONS)
        return stamped(ctx, result)

    def session_client(ctx: ServerRequestContext[Any, Any]) -> ClientState:
        client = client_of(ctx)
        if client.key is None:
            raise MCPError(INVALID_REQUEST, "resources/subscribe needs a session (initialize first, or an HTTP session); "
                                            "at 2026-07-28 and later, use subscriptions/listen.")
        return client

    async def subscribe(ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> dict[str, Any]:
        uri = str(params.uri)
        owner(uri)
        await subscriptions.subscribe(session_client(ctx), uri, ctx.session)
        return {}

    async def unsubscribe(ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> dict[str, Any]:
        await subscriptions.unsubscribe(session_client(ctx), str(params.uri))
        return {}

    async def listen_for_changes(ctx: ServerRequestContext[Any, Any],
                                 params: SubscriptionsListenRequestParams) -> SubscriptionsListenResult:
        uris = [str(uri) for uri in params.notifications.resource_subscriptions or []]
        for uri in uris:
            owner(uri)
        async with subscriptions.listening(client_of(ctx), uris):
            return await subscriptions.listen(ctx, params)

    server.add_request_handler("resources/list", PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/templates/list", PaginatedRequestParams, list_templates)
    server.add_request_handler("resources/read", ReadResourceRequestParams, read_resource)
    server.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, listen_for_changes)
