"""`mcp-variants connect URL`: a desktop MCP client that only launches commands, connected to a streamable HTTP MCP
endpoint (`serve --http`, the Jupyter server extension's `/mcp`, any other).

Each line the client writes on stdin is POSTed as it is, with the routing headers its era needs (the handshake's
session and version, or a 2026 request's own `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), by the reference
client's HTTP transport; every message the server sends back, SSE events as each ends, goes to stdout as the server
wrote it. Nothing is parsed beyond routing, so every field (SEP-3279's `requestedOutputs`, `outputs`, `_meta`) passes
through unchanged. Requests run side by side (a long run does not hold a ping); notifications and responses to the
server go in order. A handshake session's own event stream (GET) is read once the client is initialized, so a
subscribed notebook's updates reach the client too. Every request with an id gets one answer: when the endpoint
gives none (unreachable, refused, a stream that ended early) the bridge answers with a JSON-RPC error that says why,
and, for a refusal, the token.

The token is read from a file (`--token-file`) or the environment (`MCP_VARIANTS_TOKEN`), never from the command
line: a desktop client's config, and `ps`, would show it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from ..client.errors import HttpRefusal, TransportError
from ..client.http import HttpTransport
from ..client.transport import Routing, routing_for
from ..protocol.versions import VERSION_KEY
from .options import ENV_PREFIX

TOKEN_VARIABLE = ENV_PREFIX + "TOKEN"
BRIDGE_ERROR = -32000  # JSON-RPC's server-error range: the bridge's own answer when the endpoint gave none
PARSE_ERROR = -32700


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the MCP endpoint: http://127.0.0.1:8000/mcp (serve --http), http://127.0.0.1:8888/mcp "
                                    "(the Jupyter server extension; under a base URL, BASE/mcp)")
    parser.add_argument("--token-file", type=Path, metavar="PATH",
                        help=f"a file holding the token (its first line); else ${TOKEN_VARIABLE}; else no token. A Jupyter "
                             "server's token is new at each start unless pinned: JUPYTER_TOKEN, or c.IdentityProvider.token")


def read_token(token_file: Path | None) -> str | None:
    """The token: the file's first line (a `~` in its path is the home folder), or the environment's; SystemExit
    with one line when the file cannot be read or is empty."""
    if token_file is None:
        return os.environ.get(TOKEN_VARIABLE) or None
    path = token_file.expanduser()
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        sys.exit(f"mcp-variants connect: cannot read --token-file {path}: {exc.strerror}")
    if not lines or not lines[0].strip():
        sys.exit(f"mcp-variants connect: --token-file {path} is empty")
    return lines[0].strip()


class Bridge:
    """One client's stdio on one HTTP endpoint."""

    def __init__(self, transport: HttpTransport, out: BinaryIO, *, token_source: str) -> None:
        self.transport = transport
        self.out = out
        self.token_source = token_source  # where the token came from, for a refusal's message
        self._write_lock = threading.Lock()
        self._handshake_version: str | None = None
        self._told_refusal = False

    def run(self, lines: BinaryIO) -> None:
        """Until the client closes stdin; then the endpoint's session, if any, is ended."""
        try:
            for line in lines:
                if line.strip():
                    self.forward(line.strip())
        finally:
            self.transport.close()

    def forward(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as exc:
            self._answer(None, PARSE_ERROR, f"not JSON: {exc}")
            return
        if not isinstance(message, dict):
            self._relay(line, Routing("", None, self._handshake_version, False), None)  # a batch: the endpoint answers it
            return
        routing = self._routing(message)
        request_id = message.get("id") if "method" in message else None
        if request_id is None:  # a notification, or the client's answer to the server's request: in order
            self._relay(line, routing, None)
            if routing.method == "notifications/initialized" and self._handshake_version is not None:
                threading.Thread(target=self._listen, args=(self._handshake_version,), daemon=True).start()
        else:
            threading.Thread(target=self._relay, args=(line, routing, request_id), daemon=True).start()

    def _routing(self, message: dict[str, Any]) -> Routing:
        method = message.get("method")
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(VERSION_KEY) if isinstance(meta, dict) else None
        request_id = message.get("id")
        request_id = request_id if isinstance(request_id, int | str) else None
        if not isinstance(method, str):
            return Routing("", request_id, self._handshake_version, False)
        if isinstance(version, str):  # a 2026 request names its own version
            return routing_for(method, request_id, params, version, True)
        if method == "initialize" and isinstance(params, dict) and isinstance(params.get("protocolVersion"), str):
            self._handshake_version = params["protocolVersion"]
        return routing_for(method, request_id, params, self._handshake_version, False)

    def _relay(self, body: bytes, routing: Routing, request_id: Any) -> None:
        """POST `body`; write what comes back; a request the endpoint left unanswered gets the bridge's answer."""
        answered = False
        try:
            for text in self.transport.relay(body, routing):
                message = json.loads(text)
                if request_id is not None and message.get("id") == request_id and "method" not in message:
                    answered = True
                    if routing.method == "initialize":
                        self._learn_version(message)
                self._write(text if "\n" not in text else json.dumps(message, separators=(",", ":")))
        except HttpRefusal as refusal:
            self._answer(request_id, BRIDGE_ERROR, self._refused(refusal))
            return
        except TransportError as exc:
            self._answer(request_id, BRIDGE_ERROR, f"{self.transport.url} cannot be reached: {exc}")
            return
        if request_id is not None and not answered:
            self._answer(request_id, BRIDGE_ERROR, f"{self.transport.url} ended its response without answering {routing.method}")

    def _listen(self, version: str) -> None:
        """A handshake session's own event stream (what the server sends outside any request: a subscribed
        notebook's updates), written out as it comes, for as long as the session lasts."""
        try:
            for text in self.transport.listen(version):
                self._write(text if "\n" not in text else json.dumps(json.loads(text), separators=(",", ":")))
        except TransportError as exc:
            print(f"mcp-variants connect: the server's event stream ended: {exc}", file=sys.stderr, flush=True)

    def _learn_version(self, response: dict[str, Any]) -> None:
        result = response.get("result")
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            self._handshake_version = result["protocolVersion"]

    def _refused(self, refusal: HttpRefusal) -> str:
        said = f"{self.transport.url} refused the request (HTTP {refusal.status}): {refusal.text[:300]}"
        if refusal.status in (401, 403):
            said += (f". The token ({self.token_source}) is missing or wrong: put the endpoint's current token there "
                     "(a Jupyter server's is new at each start unless pinned: JUPYTER_TOKEN, or c.IdentityProvider.token)")
        if not self._told_refusal:  # once on stderr too: the desktop client's log of this server
            self._told_refusal = True
            print(f"mcp-variants connect: {said}", file=sys.stderr, flush=True)
        return said

    def _answer(self, request_id: Any, code: int, message: str) -> None:
        if request_id is None and code != PARSE_ERROR:
            print(f"mcp-variants connect: {message}", file=sys.stderr, flush=True)
            return
        self._write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}))

    def _write(self, text: str) -> None:
        with self._write_lock:
            self.out.write(text.encode() + b"\n")
            self.out.flush()


def main(args: argparse.Namespace) -> None:
    token = read_token(args.token_file)
    source = f"--token-file {args.token_file}" if args.token_file else f"${TOKEN_VARIABLE}" + ("" if token else ", not set")
    Bridge(HttpTransport(args.url, token=token), sys.stdout.buffer, token_source=source).run(sys.stdin.buffer)
