"""The REST client of one Jupyter server: base URL, token, one HTTP connection pool.

The token travels only in the Authorization header (never in a URL, which ends up in logs)
and is never part of a message, a label or a repr. The same client speaks to what serves the
same REST API: a jupyter-server, a user's server behind JupyterHub (`/user/NAME/`: the Hub
redirects its API to itself while that server is stopped), an Enterprise Gateway's kernels.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx

from ...protocol.errors import ErrorKind, ToolError
from ...tokens import token_headers
from ..refusals import Recourse, RuntimeRefusal


def split_url(url: str) -> tuple[str, str | None]:
    """The server's base URL (ending in /, no query) and a `?token=` found in it (users paste those)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "url must be an http(s) URL of a Jupyter server, such as http://127.0.0.1:8888/.")
    if parts.username or parts.password:  # it would be shown wherever the URL is
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Put no user or password in url; pass the server's token as token.")
    query = parse_qsl(parts.query)
    token = next((v for k, v in query if k == "token"), None)
    path = parts.path.rstrip("/")
    if path.rsplit("/", 1)[-1] in ("lab", "tree"):  # JupyterLab prints .../lab?token=...: the API is beside it
        path = path.rsplit("/", 1)[0]
    path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")), token  # the API needs no query


class JupyterServerClient:
    """A client of one Jupyter server, shared by the kernels and the contents of its runtime."""

    def __init__(self, url: str, token: str | None, *, timeout: float = 30.0, what: str = "the Jupyter server") -> None:
        self.url = url
        self.name = f"{what} at {url}"  # for messages: "the Jupyter server at …", "the Enterprise Gateway at …"
        self.subject = self.name[:1].upper() + self.name[1:]  # the same, to begin a sentence
        self.http = httpx.AsyncClient(base_url=url, timeout=timeout)
        self.set_token(token)

    def set_token(self, token: str | None) -> None:
        self._token = token or None
        self.http.headers.pop("Authorization", None)
        self.http.headers.update(token_headers(self._token))

    def same_token(self, token: str | None) -> bool:
        return (token or None) == self._token

    def ws_headers(self) -> dict[str, str]:
        return token_headers(self._token)

    def ws_url(self, kernel_id: str) -> str:
        return self.websocket_url(f"api/kernels/{kernel_id}/channels")

    def websocket_url(self, api_path: str, query: str = "") -> str:
        """The ws(s):// URL of `api_path` on this server (no token in it: it goes in ws_headers)."""
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urlunsplit((scheme, parts.netloc, f"{parts.path}{api_path}", query, ""))

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One REST call; a server that does not answer, refuses the token or is stopped (by its JupyterHub) is a ToolError."""
        try:
            response = await self.http.request(method, path, **kwargs)
            if response.is_redirect or response.status_code == 424:
                raise ToolError(ErrorKind.UNREACHABLE, await self._not_running(response))
        except httpx.HTTPError as exc:
            raise RuntimeRefusal(ErrorKind.UNREACHABLE, f"{self.subject} does not answer ({type(exc).__name__}); check that it runs.",
                                 recourse=Recourse.OTHER_SERVER) from None
        if response.status_code in (401, 403):
            said = reason(response)
            refusal = "refused the token" if said in ("", "Forbidden", "Unauthorized") else f"refused the request ({said})"
            raise RuntimeRefusal(ErrorKind.UNAUTHORIZED, f"{self.subject} {refusal}.", recourse=Recourse.OTHER_TOKEN)
        return response

    async def _not_running(self, response: httpx.Response) -> str:
        """What to say when the API answers with a redirect: JupyterHub sends the API of a stopped server to
        /hub/user/NAME/..., which answers 424 with where to start it again. Asked once, for its message."""
        if response.is_redirect and response.next_request is not None:
            response = await self.http.send(response.next_request)
        said = reason(response) if response.status_code == 424 else f"the API answers with a redirect ({response.status_code})"
        return (f"{self.subject} is not running: {said}. Start it again (a JupyterHub "
                "user's server: from the Hub's home page, or the Hub's API), then call again.")

    async def status(self) -> dict[str, Any]:
        """/api/status (needs the token) plus the server version from /api."""
        response = await self.request("GET", "api/status")
        try:
            status = dict(response.json()) if response.status_code == 200 else None
            version = await self.request("GET", "api")
            status = status if status is None else {**status, "version": str(version.json().get("version", ""))}
        except ValueError:  # an answer, but not JSON
            status = None
        if status is None:
            raise ToolError(ErrorKind.UNREACHABLE, f"{self.url} answered {response.status_code} to /api/status: is it a Jupyter server?")
        return status

    async def aclose(self) -> None:
        await self.http.aclose()


def reason(response: httpx.Response) -> str:
    """What a server's error answer says."""
    try:
        return str(response.json().get("message") or response.reason_phrase)
    except ValueError:
        return response.reason_phrase
