"""The reference client (mcp_variants.client) as a `mcp-variants check-client` participant.

    MCP_CONFORMANCE_SCENARIO=... MCP_CONFORMANCE_CONTEXT=... python -m mcp_variants.conformance.reference_client URL

It is what an SDK author writes for their own client, in about forty lines: read the
scenario from the environment, open a session at the requested version over HTTP, call the
tool in the requested execution mode through a host router whose consumers write one JSON
line per delivery to $MCP_CONFORMANCE_DELIVERIES, and exit (1 when the client refused or
rejected something, with the reason on stderr). `mcp-variants check-client` runs it when
no --command is given.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from ..client.errors import ClientError
from ..client.http import HttpTransport
from ..client.minimal_host import Host
from ..client.modes import Mode
from ..client.router import Delivery, HostRouter
from ..client.session import ClientSession


def consumer(name: str, sink: IO[str]) -> Any:
    def deliver(delivery: Delivery) -> None:
        audience = delivery.selector.audience if delivery.selector else None
        sink.write(json.dumps({"consumer": name, "tool": delivery.tool, "audience": audience, "payload": delivery.payload}) + "\n")
        sink.flush()

    return deliver


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m mcp_variants.conformance.reference_client URL (scenario in MCP_CONFORMANCE_* variables)", file=sys.stderr)
        return 2
    context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
    # The official suite's client runner sets the version variable from its own --spec-version and knows no
    # deliveries file: the SEP-3279 scenarios in its API (conformance-ts/) put both in the context.
    version = context.get("protocolVersion") or os.environ["MCP_CONFORMANCE_PROTOCOL_VERSION"]
    with open(context.get("deliveries") or os.environ["MCP_CONFORMANCE_DELIVERIES"], "a") as sink:
        router = HostRouter(**{name: consumer(name, sink) for name in context.get("consumers", ["model", "user", "program", "view"])})
        session = ClientSession(HttpTransport(argv[-1]), version, extensions=context.get("extensions") or None)
        try:
            Host(session, router).call(context["tool"], context.get("arguments") or {}, Mode(context["mode"]))
        except ClientError as exc:
            print(f"{os.environ.get('MCP_CONFORMANCE_SCENARIO')}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        finally:
            session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
