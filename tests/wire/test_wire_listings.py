"""list_files and list_kernels through the wire (issue 2 "Tools in this issue"; docs/choices.md
"Result `_meta`": listings carry a private cache hint)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.servers import HttpServer
from support.wire import (
    CACHE_META_KEY,
    CONTENT_ONLY_VERSIONS,
    LEGACY_STRUCTURED_VERSIONS,
    OUTPUTS_VERSION,
    TRANSPORTS,
    WireClient,
    check_output_shape,
    only_output,
    output_for,
    outputs_of,
    pairs,
    sel,
    stdio_target,
    text_of,
    unique,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]

OUTSIDE = ["../", "..", "/etc", "/", "a/../../x", "../../../../etc"]


def is_error(reply: Any) -> bool:
    return reply.result.get("isError") is True


# ---- list_files -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", OUTSIDE)
@pytest.mark.parametrize("transport,version", pairs())
def test_path_outside_root_is_a_tool_error(connect, transport, version, path):
    """A path that leaves the root is isError, at every version; at 2026-12-01 every requested
    structured output has the error shape, and nothing from outside is listed (issue 2 "Errors";
    CLI: "no path leaves it")."""
    client = connect(transport, version)
    if version == OUTPUTS_VERSION:
        reply = client.call("list_files", {"path": path},
                            requested=[sel("assistant", "content"), sel("programmatic", "structured")])
        assert is_error(reply), reply.message
        outputs = outputs_of(reply)
        assert len(outputs) == 2
        error = output_for(outputs, "programmatic", "structured")["structuredContent"]["error"]
        assert isinstance(error["type"], str) and isinstance(error["message"], str)
        body = json.dumps(outputs)
    else:
        reply = client.call("list_files", {"path": path})
        assert is_error(reply), reply.message
        assert "outputs" not in reply.result
        body = json.dumps(reply.result)
    assert "passwd" not in body and "hostname" not in body


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_nul_in_a_path_is_a_clear_tool_error(connect, transport):
    """A NUL character in a path (which no file system takes) is the path tool error, not an internal one."""
    reply = connect(transport, OUTPUTS_VERSION).call("list_files", {"path": "a\u0000b"},
                                                      requested=[sel("programmatic", "structured")])
    assert is_error(reply), reply.message
    error = output_for(outputs_of(reply), "programmatic", "structured")["structuredContent"]["error"]
    assert error["type"] == "path-outside-root" and "NUL" in error["message"], error


@pytest.mark.parametrize("transport,version", pairs())
def test_created_files_appear(connect, root, transport, version):
    """Files created under the root show up in list_files, in the assistant's representation
    at every version and in programmatic/structured at 2026-12-01."""
    folder = unique("made-")
    (root / folder).mkdir()
    names = sorted(f"{unique('f-')}.txt" for _ in range(3)) + [f"{unique('nb-')}.ipynb"]
    for name in names:
        (root / folder / name).write_text("{}")
    client = connect(transport, version)
    if version == OUTPUTS_VERSION:
        reply = client.call("list_files", {"path": folder},
                            requested=[sel("assistant", "content"), sel("programmatic", "structured")])
        outputs = outputs_of(reply)
        text = text_of(output_for(outputs, "assistant", "content")["content"])
        files = output_for(outputs, "programmatic", "structured")["structuredContent"]["files"]
        assert sorted(f["name"] for f in files) == sorted(names)
        assert {f["path"] for f in files} == {f"{folder}/{n}" for n in names}
        assert {f["type"] for f in files if f["name"].endswith(".ipynb")} == {"notebook"}
    else:
        reply = client.call("list_files", {"path": folder})
        text = text_of(reply.result["content"])
        if version in LEGACY_STRUCTURED_VERSIONS:
            items = json.dumps(reply.result["structuredContent"]["items"])
            assert all(n in items for n in names)
    assert all(n in text for n in names), text
    # and at the root, without a path
    top = unique("top-") + ".py"
    (root / top).write_text("")
    root_text = json.dumps(client.call("list_files", {"limit": 1000}).result)
    assert top in root_text


def _page_cursor(client: WireClient, version: str, folder: str, cursor: str | None) -> tuple[list[str], str | None]:
    """One page of `folder` with limit 2: (names on it, the next cursor), read the way a client
    of `version` reads it."""
    args: dict[str, Any] = {"path": folder, "limit": 2}
    if cursor is not None:
        args["cursor"] = cursor
    if version == OUTPUTS_VERSION:
        reply = client.call("list_files", args, requested=[sel("programmatic", "structured")])
        data = only_output(reply, "programmatic", "structured")["structuredContent"]
        return [f["name"] for f in data["files"]], data.get("nextCursor")
    result = client.call("list_files", args).result
    assert result.get("isError") is not True, result
    if version in LEGACY_STRUCTURED_VERSIONS:
        data = result["structuredContent"]
        return _names(json.dumps(data["items"])), data.get("nextCursor")
    text = text_of(result["content"])  # content only: the model reads the cursor in the text
    match = re.search(r"cursor=['\"]?([^'\"\s.]+)", text)
    return _names(text), match.group(1) if match else None


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"p\d\.txt", text)))


@pytest.mark.parametrize("transport,version", pairs())
def test_paging_with_limit_and_cursor(connect, root, transport, version):
    """limit/cursor paging visits every file exactly once, in pages of at most `limit`, with a
    cursor on every page but the last (list_files inputSchema: "pass nextCursor back as cursor")."""
    folder = unique("paged-")
    (root / folder).mkdir()
    expected = [f"p{i}.txt" for i in range(5)]
    for name in expected:
        (root / folder / name).write_text(name)
    client = connect(transport, version)
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(5):
        names, cursor = _page_cursor(client, version, folder, cursor)
        assert 1 <= len(names) <= 2, names
        seen += names
        if cursor is None:
            break
    assert seen == expected


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_paging_total_and_bad_cursor(outputs_client, root, transport):
    """programmatic/structured reports the total on every page; a cursor the server never issued
    is a tool error, not a crash (issue 2 "Errors")."""
    folder = unique("total-")
    (root / folder).mkdir()
    for i in range(3):
        (root / folder / f"t{i}").write_text("")
    client = outputs_client(transport)
    reply = client.call("list_files", {"path": folder, "limit": 1}, requested=[sel("programmatic", "structured")])
    data = only_output(reply, "programmatic", "structured")["structuredContent"]
    assert data["total"] == 3 and len(data["files"]) == 1 and data["nextCursor"]
    bad = client.call("list_files", {"path": folder, "cursor": "not-a-cursor"}, requested=[sel("programmatic", "structured")])
    assert is_error(bad)
    assert only_output(bad, "programmatic", "structured")["structuredContent"]["error"]["type"]


@pytest.mark.parametrize("transport,version", pairs())
def test_list_files_carries_the_private_cache_hint(connect, transport, version):
    """list_files results carry _meta["io.modelcontextprotocol/cache"] = {ttlMs: 30000,
    cacheScope: "private"} at every version (docs/choices.md "Result `_meta`")."""
    client = connect(transport, version)
    requested = [sel("assistant", "content"), sel("assistant", "structured")] if version == OUTPUTS_VERSION else None
    result = client.call("list_files", {}, requested=requested).result
    assert result.get("isError") is not True
    hint = result.get("_meta", {}).get(CACHE_META_KEY)
    assert hint == {"ttlMs": 30000, "cacheScope": "private"}, result.get("_meta")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_user_structured_is_host_presentable_table(outputs_client, root, transport):
    """user/structured of a listing is data for host-native presentation: columns with keys and
    labels and rows keyed by them, no prose (SEP "Host-native structured presentation")."""
    folder = unique("table-")
    (root / folder).mkdir()
    (root / folder / "a.csv").write_text("x")
    reply = outputs_client(transport).call("list_files", {"path": folder}, requested=[sel("user", "structured")])
    output = only_output(reply, "user", "structured")
    check_output_shape(output)
    table = output["structuredContent"]
    keys = [c["key"] for c in table["columns"]]
    assert table["rows"] and set(table["rows"][0]) <= set(keys)
    assert table["rows"][0]["path"] == f"{folder}/a.csv"


# ---- list_kernels ---------------------------------------------------------------------------


@pytest.fixture(scope="module", params=TRANSPORTS)
def fresh_client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireClient]:
    """A 2026-12-01 client of a server of its own (nothing has run on it yet)."""
    root: Path = tmp_path_factory.mktemp(f"kernels-{request.param}")
    server: Any = stdio_target(root) if request.param == "stdio" else HttpServer(root, log=root.parent / f"{root.name}.log")
    try:
        yield WireClient(server if request.param == "stdio" else server.target, OUTPUTS_VERSION, None)
    finally:
        server.close()


def test_list_kernels_after_one_execute_lists_one_kernel(fresh_client):
    """On a fresh server no kernel runs; after one execute_code exactly one kernel is listed, the
    one that ran the code, with a private 10 s cache hint (issue 2 tools; docs/choices.md)."""
    before = fresh_client.call("list_kernels", {}, requested=[sel("programmatic", "structured")])
    assert only_output(before, "programmatic", "structured")["structuredContent"]["kernels"] == []
    ran = fresh_client.call("execute_code", {"code": "1 + 1"}, requested=[sel("programmatic", "structured")])
    kernel_id = only_output(ran, "programmatic", "structured")["structuredContent"]["kernelId"]
    reply = fresh_client.call("list_kernels", {}, requested=[sel("programmatic", "structured"), sel("assistant", "content")])
    outputs = outputs_of(reply)
    kernels = output_for(outputs, "programmatic", "structured")["structuredContent"]["kernels"]
    assert [k["id"] for k in kernels] == [kernel_id]
    assert kernels[0]["executionCount"] >= 1
    assert kernel_id in text_of(output_for(outputs, "assistant", "content")["content"])
    assert reply.result["_meta"][CACHE_META_KEY] == {"ttlMs": 10000, "cacheScope": "private"}


@pytest.mark.parametrize("transport,version", pairs())
def test_list_kernels_at_every_version(connect, transport, version):
    """After an execute on this client, list_kernels shows a kernel and carries the 10 s private
    cache hint at every version; legacy structuredContent uses the rows shape."""
    client = connect(transport, version)
    client.call("execute_code", {"code": "1"})
    if version == OUTPUTS_VERSION:
        reply = client.call("list_kernels", {}, requested=[sel("programmatic", "structured")])
        assert only_output(reply, "programmatic", "structured")["structuredContent"]["kernels"]
        result = reply.result
    else:
        result = client.call("list_kernels", {}).result
        assert "outputs" not in result
        if version in LEGACY_STRUCTURED_VERSIONS:
            assert result["structuredContent"]["count"] >= 1
            assert result["structuredContent"]["kind"] == "kernels.list"
        else:
            assert version in CONTENT_ONLY_VERSIONS and "structuredContent" not in result
        assert "python3" in text_of(result["content"])
    assert result["_meta"][CACHE_META_KEY] == {"ttlMs": 10000, "cacheScope": "private"}


@pytest.mark.parametrize("transport,version", pairs(versions=(OUTPUTS_VERSION, "2025-11-25")))
def test_symlink_out_of_the_root_is_neither_listed_nor_followed(connect, root, transport, version):
    """A symbolic link inside the root that points outside it is not shown, and listing through it
    is a tool error (CLI --root: "no path leaves it")."""
    link = unique("escape-")
    (root / link).symlink_to("/etc")
    client = connect(transport, version)
    listing = json.dumps(client.call("list_files", {"limit": 1000}).result)
    assert link not in listing
    through = client.call("list_files", {"path": link})
    assert is_error(through)
    assert "passwd" not in json.dumps(through.result)
