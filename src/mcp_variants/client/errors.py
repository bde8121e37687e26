"""What the reference client raises: each names the rule at stake, so a host can tell a
broken server (InvalidServerResponse) from a request it refused to send (SelectionError)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ClientError(Exception):
    """Base of every error the reference client raises."""


class TransportError(ClientError):
    """The bytes did not arrive or did not come back as one JSON-RPC response."""


class HttpRefusal(TransportError):
    """The server answered with an HTTP error status and no JSON-RPC message (a proxy's or an authenticator's)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"HTTP {status}: {text[:300]}")
        self.status = status
        self.text = text


class ServerError(ClientError):
    """The server answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"JSON-RPC error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class InvalidServerResponse(ClientError):
    """A response that breaks a SEP-3279 (or base protocol) rule; nothing of it is used."""

    def __init__(self, problems: Sequence[str], response: Any = None) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        self.response = response
        super().__init__("invalid server response: " + "; ".join(self.problems))


class SelectionError(ClientError, ValueError):
    """A request the client refuses to send because it would break a client MUST."""
