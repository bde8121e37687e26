"""Streamable HTTP sessions at the cap: the least recently used idle one ends to make room.

The SDK refuses every new session (503) while `max_sessions` are open, until the idle timeout ends one: a
client that opens sessions and never ends them (DELETE) locks every other client out for that long. Here a
new session instead ends the least recently used idle one (no request in flight, no open GET stream); its
client gets 404 on its next request and initializes again, as the spec says a client does. Only when every
session is busy is the new one refused.

The hook is the manager's `_admit_session` (mcp 2.3.0), which admits a session under the creation lock:
delete this module when the SDK can evict at the cap itself.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

logger = logging.getLogger(__name__)


def evict_idle_at_cap(manager: StreamableHTTPSessionManager) -> None:
    """Make `manager` end its least recently used idle session when a new one would exceed `max_sessions`."""
    admit = manager._admit_session

    def admit_or_evict(requestor: Any) -> StreamableHTTPServerTransport | None:
        if manager.max_sessions is not None and len(manager._server_instances) >= manager.max_sessions:
            end_least_recently_used(manager)
        return admit(requestor)

    manager._admit_session = admit_or_evict  # type: ignore[method-assign]


def end_least_recently_used(manager: StreamableHTTPSessionManager) -> str | None:
    """End the idle session whose last request ended first; its id, or None when every session is busy.

    An idle session's idle deadline is its last request's end plus the timeout (the same for all), so the
    earliest deadline is the least recently used. Forgotten at once (its id answers 404 from now on); its
    server task then ends, and discards and terminates it.
    """
    idle = [(deadline, session_id) for session_id, transport in manager._server_instances.items()
            if math.isfinite(deadline := _idle_deadline(transport))]
    if not idle:
        return None
    _, session_id = min(idle)
    transport = manager._server_instances.pop(session_id)
    manager._session_owners.pop(session_id, None)
    assert transport.idle_scope is not None
    transport.idle_scope.cancel()
    logger.info("Session %s ended to make room: %d sessions open (--max-sessions)", session_id, manager.max_sessions)
    return session_id


def _idle_deadline(transport: StreamableHTTPServerTransport) -> float:
    """When the idle timeout would end the session: infinite while a request is in flight (or without a timeout)."""
    scope = transport.idle_scope
    return scope.deadline if scope is not None and not scope.cancel_called else math.inf
