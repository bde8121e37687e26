"""`mcp-variants serve` over stdio as the remote-runtime, live-notebook and browser tests drive it: a
2025-11-25 session or stateless 2026-12-01 requests, every output checked against its schema,
every response and stderr byte kept (so a test can prove a secret never left the process)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from mcp_variants.client.stdio import envelope
from support.processes import Reaper
from support.servers import serve_stdio

OUTPUTS_VERSION = "2026-12-01"
LEGACY_VERSION = "2025-11-25"
UI_EXTENSIONS = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
REPO = Path(__file__).resolve().parents[2]
_error_shape = json.loads((REPO / "variants" / "shapes" / "error.json").read_text())
_error_shape.pop("$comment", None)
ERROR_VALIDATOR = Draft202012Validator(_error_shape)
PS, AS, AC = "programmatic/structured", "assistant/structured", "assistant/content"


class Server:
    """`mcp-variants serve` over stdio: a 2025-11-25 session, or stateless 2026-12-01 requests.

    Every response and stderr byte is kept, so a test can prove a secret never left the process.
    """

    def __init__(self, root: Path, *extra: str, stateless: bool, reaper: Reaper, env: dict[str, str] | None = None,
                 fresh: bool = False, client_info: dict[str, Any] | None = None) -> None:
        self.connection = serve_stdio(root, *extra, fresh=fresh, stderr_keep=None, env=env)  # all of it: a secret may be anywhere
        self.process = reaper.watch(self.connection.process.pid)
        self.stateless = stateless
        self.seen: list[str] = []
        if stateless:
            listed = self.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)})
            self.tools = {t["name"]: t for t in listed["result"]["tools"]}
        else:
            assert self.connection.initialize(LEGACY_VERSION, client_info=client_info)["result"]["protocolVersion"] == LEGACY_VERSION
            self.tools = {t["name"]: t for t in self.request("tools/list", {})["result"]["tools"]}

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = self.connection.request(method, params, timeout=120)
        self.seen.append(json.dumps(response))
        self.seen.extend(json.dumps(n) for n in self.connection.notifications)
        self.connection.notifications.clear()
        return response

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """One tools/call; at 2026-12-01 every declared variant is requested and each output checked
        against its schema (the error shape when isError). Returns {"audience/format": value, ...}
        plus "result" (the whole result); at 2025-11-25, structuredContent against outputSchema."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments or {}}
        if not self.stateless:
            result = self.request("tools/call", params)["result"]
            if not result.get("isError"):
                schema = self.tools[tool]["outputSchema"]
                problems = [e.message for e in Draft202012Validator(schema).iter_errors(result["structuredContent"])]
                assert not problems, (tool, problems, result["structuredContent"])
            return {"result": result, AC: result["content"], AS: result.get("structuredContent")}
        variants = self.tools[tool]["outputVariants"]
        params["requestedOutputs"] = [{"audience": v["audience"], "format": v["format"]} for v in variants]
        params["_meta"] = envelope(OUTPUTS_VERSION, UI_EXTENSIONS)
        result = self.request("tools/call", params)["result"]
        outputs: dict[str, Any] = {"result": result}
        schemas = {f"{v['audience']}/{v['format']}": v.get("schema") for v in variants}
        assert [f"{o['audience']}/{o['format']}" for o in result["outputs"]] == list(schemas)
        for output in result["outputs"]:
            key = f"{output['audience']}/{output['format']}"
            if output["format"] == "content":
                assert output["content"] and all(b["type"] in ("text", "image") for b in output["content"])
                outputs[key] = output["content"]
                continue
            validator = ERROR_VALIDATOR if result.get("isError") else Draft202012Validator(schemas[key])
            problems = [e.message for e in validator.iter_errors(output["structuredContent"])]
            assert not problems, f"{tool} {key}: {problems}: {json.dumps(output['structuredContent'])[:1500]}"
            outputs[key] = output["structuredContent"]
        return outputs

    def assert_secret_kept(self, *secrets: str) -> None:
        text = self.connection.stderr_tail.decode(errors="replace")
        for secret in secrets:
            assert len(secret) >= 16
            assert not any(secret in s for s in self.seen), "a token reached a response"
            assert secret not in text, "a token reached stderr"

    def sigterm(self, timeout: float = 30.0) -> float:
        began = time.monotonic()
        os.kill(self.connection.process.pid, signal.SIGTERM)
        self.connection.process.wait(timeout)
        self.connection.child.stderr.join()
        return time.monotonic() - began

    def close(self) -> None:
        self.connection.close()


@contextmanager
def through(lab: Any, root: Path, *extra: str) -> Iterator[Server]:
    """A module's stateless server through `lab` (a JupyterServerProcess): closed with whatever it left running
    (a reaper of its own), and shown afterwards never to have let the lab's token out."""
    reaper = Reaper()
    server = Server(root, "--jupyter-url", lab.url, "--jupyter-token", lab.token, *extra, stateless=True, reaper=reaper)
    try:
        yield server
    finally:
        server.close()
        reaper.kill_all()
    server.assert_secret_kept(lab.token)


def text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b["type"] == "text")


def stdout_of(outputs: dict[str, Any]) -> str:
    return "".join(o.get("text", "") for o in outputs[PS]["outputs"] if o["output_type"] == "stream")
