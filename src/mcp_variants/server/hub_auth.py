"""A standalone `serve --http` whose callers are a JupyterHub's users, each with their own Hub token.

`HubTokenVerifier` is a token verifier of the SDK's own auth support (mcp.server.auth): the SDK's bearer
middleware hands it each request's token, and it asks the Hub who that is (`GET /hub/api/user` with the
token, as a Hub service does). A token the Hub does not know, or whose scopes lack the one this server asks
for, is refused (401, before anything runs); otherwise the request's principal is the Hub user (or service),
with the token's scopes. A Hub's answer is kept for `cache_s` seconds, by the token's digest (never the token).

The scope asked for is by default `access:services!service=NAME` for the service name this server is
registered under in the Hub (JUPYTERHUB_SERVICE_NAME, as the Hub sets it for a managed service): the scope
the Hub grants to whom may reach that service.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict

import httpx
from mcp.server.auth.provider import AccessToken

from ..tokens import token_headers
from .callers import VIA_CLAIM

logger = logging.getLogger(__name__)

CACHE_S = 60.0
CACHE_ENTRIES = 1024


def service_scope(name: str) -> str:
    return f"access:services!service={name}"


def grants(scopes: list[str], required: str) -> bool:
    """Whether `scopes` hold `required`, or the same scope unfiltered (`access:services` holds `access:services!service=x`)."""
    return required in scopes or required.split("!", 1)[0] in scopes


class HubTokenVerifier:
    """`api_url`: the Hub's API (`https://hub.example/hub/api/`, JUPYTERHUB_API_URL); `scope`: what a token must carry."""

    def __init__(self, api_url: str, scope: str | None, *, cache_s: float = CACHE_S, client: httpx.AsyncClient | None = None) -> None:
        self.api_url = api_url.rstrip("/") + "/"
        self.scope = scope
        self.cache_s = cache_s
        self._http = client or httpx.AsyncClient(timeout=10)
        self._known: OrderedDict[str, tuple[float, AccessToken | None]] = OrderedDict()

    async def verify_token(self, token: str) -> AccessToken | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        cached = self._known.get(key)
        if cached is not None and now - cached[0] < self.cache_s:
            self._known.move_to_end(key)
            return cached[1]
        verified = await self._ask(token)
        self._known[key] = (now, verified)
        while len(self._known) > CACHE_ENTRIES:
            self._known.popitem(last=False)
        return verified

    async def _ask(self, token: str) -> AccessToken | None:
        try:
            response = await self._http.get(self.api_url + "user", headers=token_headers(token))
        except httpx.HTTPError as exc:
            logger.warning("the JupyterHub at %s did not answer about a token (%s): refused", self.api_url, type(exc).__name__)
            return None
        if response.status_code != 200:
            return None  # 403: the Hub does not know the token
        model = response.json()
        name = str(model.get("name") or "")
        scopes = [str(s) for s in model.get("scopes") or []]
        if not name or (self.scope and not grants(scopes, self.scope)):
            logger.info("a token of %s lacks %s: refused", name or "nobody", self.scope)
            return None
        return AccessToken(token=token, client_id=name, scopes=scopes, subject=name,
                           claims={VIA_CLAIM: "jupyterhub", "kind": model.get("kind", "user")})

    async def aclose(self) -> None:
        await self._http.aclose()
