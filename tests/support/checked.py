"""Tool calls with every result checked, over either raw client of the project: `CheckedClient`.

The transport is the project's own raw client, as given: a `client.stdio.StdioConnection` (a stdio server the test
started, `CheckedClient.serve` or `servers.serve_stdio`) or a `conformance.wire.HttpTarget` (any MCP endpoint over
streamable HTTP: `serve --http`, the Jupyter extension, through a Hub; headers such as a token go to its
`headers`). On top of either, a 2026-12-01 client (stateless, the MCP Apps extension negotiated) or a 2025-11-25
one (initialized, a client with state): each output is checked against its schema (the error shape when isError),
and every response, notification and stderr byte is kept, so a test can prove a secret never left the process.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from jsonschema import Draft202012Validator

from mcp_variants.client.stdio import StdioConnection, envelope
from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.protocol.versions import VERSION_KEY
from support.processes import Reaper
from support.servers import REQUEST_TIMEOUT, serve_stdio

OUTPUTS_VERSION = "2026-12-01"
LEGACY_VERSION = "2025-11-25"
UI_EXTENSIONS = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
REPO = Path(__file__).resolve().parents[2]
_error_shape = json.loads((REPO / "variants" / "shapes" / "error.json").read_text())
_error_shape.pop("$comment", None)
ERROR_VALIDATOR = Draft202012Validator(_error_shape)
PS, AS, AC = "programmatic/structured", "assistant/structured", "assistant/content"
CALL_TIMEOUT = 120.0


class Outputs(dict[str, Any]):
    """A result's outputs by 'audience/format' (at 2025-11-25: content as AC, structuredContent as AS);
    `.result` is the whole result."""

    result: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        # A result's field asked of its outputs (`out.get("isError")`) would be None, always: fail instead.
        assert "/" in key, f"outputs are keyed by 'audience/format', not {key!r}: the result's own fields are in .result"
        return super().get(key, default)

    @property
    def is_error(self) -> bool:
        return bool(self.result.get("isError"))

    @property
    def meta(self) -> dict[str, Any]:
        return self.result.get("_meta") or {}


class CheckedClient:
    """A 2026-12-01 client (`stateless`) or a 2025-11-25 one on `connection`; `call` checks every output.

    Not `wire.WireClient`: that one judges the wire itself, exchange by exchange; this one the tools' results, with a
    server of its own when a test needs its process (stderr, PID, SIGTERM).
    """

    def __init__(self, connection: StdioConnection | HttpTarget, *, stateless: bool,
                 client_info: dict[str, Any] | None = None) -> None:
        self.connection = connection
        self.stateless = stateless
        self.version = OUTPUTS_VERSION if stateless else LEGACY_VERSION
        self.seen: list[str] = []  # every message received, as JSON: what a secret must not be in
        if not stateless:
            if isinstance(connection, HttpTarget):
                assert client_info is None, "an HttpTarget's sessions say the conformance suite's clientInfo"
                session, init = connection.session(LEGACY_VERSION, None, CALL_TIMEOUT)
                assert init.problem is None and init.unsupported is None and session, init.problem or init.unsupported
            else:
                init_result = connection.initialize(LEGACY_VERSION, client_info=client_info)["result"]
                assert init_result["protocolVersion"] == LEGACY_VERSION, init_result
        listed = self.request("tools/list", {})
        assert "result" in listed, listed
        self.tools: dict[str, dict[str, Any]] = {t["name"]: t for t in listed["result"]["tools"]}
        self.validators: dict[tuple[str, str], Draft202012Validator] = {}
        for name, tool in self.tools.items():
            for variant in tool.get("outputVariants", []):
                if "schema" in variant:
                    Draft202012Validator.check_schema(variant["schema"])
                    self.validators[(name, f"{variant['audience']}/{variant['format']}")] = Draft202012Validator(variant["schema"])

    @classmethod
    def serve(cls, root: Path, *extra: str, stateless: bool, reaper: Reaper | None = None, env: dict[str, str] | None = None,
              fresh: bool = False, client_info: dict[str, Any] | None = None) -> CheckedClient:
        """`mcp-variants serve --root ROOT EXTRA` over stdio, all of its stderr kept (a secret may be anywhere), its PID
        watched by `reaper`."""
        connection = serve_stdio(root, *extra, fresh=fresh, stderr_keep=None, env=env)
        if reaper is not None:
            reaper.watch(connection.process.pid)
        return cls(connection, stateless=stateless, client_info=client_info)

    @classmethod
    def http(cls, url: str, headers: Mapping[str, str] | None = None, *, stateless: bool = True) -> CheckedClient:
        """The endpoint at `url` over streamable HTTP, `headers` on every request; at 2025-11-25 a session of its own."""
        return cls(HttpTarget(url, headers=headers, timeout=REQUEST_TIMEOUT), stateless=stateless)

    @property
    def session_headers(self) -> dict[str, str]:
        """A 2025-11-25 client's over HTTP: the headers that name its session (for a GET of its event stream)."""
        assert isinstance(self.connection, HttpTarget) and not self.stateless, "an HTTP session's"
        session, _ = self.connection.session(LEGACY_VERSION, None)
        assert session is not None
        return {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY_VERSION}

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request; a stateless client's carries the envelope (2026-12-01, the Apps extension) unless its `_meta`
        names a version already. The whole response, result or error."""
        if self.stateless and VERSION_KEY not in (params.get("_meta") or {}):
            params = {**params, "_meta": {**(params.get("_meta") or {}), **envelope(OUTPUTS_VERSION, UI_EXTENSIONS)}}
        if isinstance(self.connection, HttpTarget):
            version = params["_meta"][VERSION_KEY] if self.stateless else self.version
            trip = self.connection.exchange(version, None, method, params, CALL_TIMEOUT, envelope=False)
            assert trip.status == 200, (trip.status, trip.problem, trip.raw[:500])
            response = trip.message
            self.seen.extend(json.dumps(n) for n in trip.notifications)
        else:  # its notifications stay in `connection.notifications`, for the test to read
            response = self.connection.request(method, params, timeout=CALL_TIMEOUT)
        self.seen.append(json.dumps(response))
        return response

    def selectors(self, tool: str) -> list[dict[str, str]]:
        """Every variant `tool` declares."""
        return [{"audience": v["audience"], "format": v["format"]} for v in self.tools[tool]["outputVariants"]]

    def call(self, tool: str, arguments: dict[str, Any] | None = None, selectors: list[dict[str, str]] | None = None) -> Outputs:
        """tools/call. At 2026-12-01 requesting `selectors` (default: every declared variant): exactly those come back, in
        order, each valid against its variant's schema. At 2025-11-25: no SEP-3279 field; content, and on success
        structuredContent valid against the tool's outputSchema."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments or {}}
        if self.stateless:
            params["requestedOutputs"] = selectors if selectors is not None else self.selectors(tool)
        response = self.request("tools/call", params)
        assert "result" in response, response
        outputs = Outputs()
        outputs.result = result = response["result"]
        if not self.stateless:
            return self._legacy(tool, outputs)
        got = [(o["audience"], o["format"]) for o in result["outputs"]]
        assert got == [(s["audience"], s["format"]) for s in params["requestedOutputs"]], "exactly the requested outputs, in order"
        for output in result["outputs"]:
            key = f"{output['audience']}/{output['format']}"
            if output["format"] == "content":
                check_content(output["content"])
                outputs[key] = output["content"]
                continue
            value = output["structuredContent"]
            validator = ERROR_VALIDATOR if result.get("isError") else self.validators[(tool, key)]
            problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(value)]
            assert not problems, f"{tool} {key} breaks its schema: {problems}\n{json.dumps(value)[:2000]}"
            outputs[key] = value
        return outputs

    def _legacy(self, tool: str, outputs: Outputs) -> Outputs:
        result = outputs.result
        assert "outputs" not in result, result
        check_content(result["content"])
        outputs[AC] = result["content"]
        if result.get("isError"):
            assert "structuredContent" not in result, result
            return outputs
        schema = self.tools[tool]["outputSchema"]
        problems = [e.message for e in Draft202012Validator(schema).iter_errors(result["structuredContent"])]
        assert not problems, (tool, problems, result["structuredContent"])
        outputs[AS] = result["structuredContent"]
        return outputs

    # ---- a stdio server of the test's own ---------------------------------------------------------------

    @property
    def stdio(self) -> StdioConnection:
        assert isinstance(self.connection, StdioConnection), "a stdio server's, not an endpoint's"
        return self.connection

    def assert_secret_kept(self, *secrets: str) -> None:
        """No secret in any message received, nor (stdio) in the server's stderr."""
        text, seen = "", self.seen
        if isinstance(self.connection, StdioConnection):
            text = self.connection.stderr_tail.decode(errors="replace")
            seen = [*seen, *map(json.dumps, self.connection.notifications)]
        for secret in secrets:
            assert len(secret) >= 16
            assert not any(secret in s for s in seen), "a token reached a response"
            assert secret not in text, "a token reached stderr"

    def sigterm(self, timeout: float = 30.0) -> float:
        """SIGTERM the stdio server; the seconds until it exited and its stderr was read to the end."""
        began = time.monotonic()
        os.kill(self.stdio.process.pid, signal.SIGTERM)
        self.stdio.process.wait(timeout)
        self.stdio.child.stderr.join()
        return time.monotonic() - began

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def through(lab: Any, root: Path, *extra: str) -> Iterator[CheckedClient]:
    """A module's stateless stdio server through `lab` (a JupyterServerProcess): closed with whatever it left running
    (a reaper of its own), and shown afterwards never to have let the lab's token out."""
    reaper = Reaper()
    server = CheckedClient.serve(root, "--jupyter-url", lab.url, "--jupyter-token", lab.token, *extra, stateless=True, reaper=reaper)
    try:
        yield server
    finally:
        server.close()
        reaper.kill_all()
    server.assert_secret_kept(lab.token)


def check_content(blocks: Any) -> None:
    """Content blocks: text, an image, or (`--images link`) a link to one."""
    assert isinstance(blocks, list) and blocks, blocks
    for block in blocks:
        assert block["type"] in ("text", "image", "resource_link"), block
        if block["type"] == "text":
            assert isinstance(block["text"], str) and block["text"], block
        elif block["type"] == "resource_link":  # --images link
            assert block["uri"].startswith("mcp-variants://images/") and block["name"] and block["mimeType"].startswith("image/"), block
        else:
            assert block["mimeType"].startswith("image/") and base64.b64decode(block["data"]), block


def text_of(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b["type"] == "text")


def stdout_of(outputs: Outputs) -> str:
    return "".join(o.get("text", "") for o in outputs[PS]["outputs"] if o["output_type"] == "stream")
