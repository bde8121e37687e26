"""Every byte of a cut output within the model's reach through a tool (issue 46): a real server over stdio, a real
kernel. The model's text of a 3,000-line output is cut; its notice names a read_output call with its arguments, and
following it (and the nextCursor of each page, or a pattern) reads the fact at line 1,500. The same for a notebook
cell's output, through the notices of the cell's run and of read_cell."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from support.wire import OUTPUTS_VERSION, output_for, outputs_of, sel, text_of, unique, validate

pytestmark = [pytest.mark.wire, pytest.mark.timeout(240)]

HANDSHAKE = "2025-11-25"
FACT = "the reactor key is 7c41-d9e2"
# The fact is made by the kernel, so that read_cell's source does not hold it.
LOG = ("for i in range(1, 3001):\n"
       "    print(f'the reactor key is {0x7c41:x}-{0xd9e2:x}' if i == 1500 else f'step {i:5d} ok value={i * 7 % 1013}')")
CALL = re.compile(r'read_output\((uri="[^"]+"(?:, \w+=(?:"(?:[^"\\]|\\.)*"|\d+))*)\)')
ARGUMENT = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\d+)')


def named_call(text: str) -> dict[str, Any]:
    """The arguments of the first read_output call `text` names, as a model would copy them."""
    match = CALL.search(text)
    assert match, text[-600:]
    return {name: json.loads(value) for name, value in ARGUMENT.findall(match[1])}


def page_until(client: Any, arguments: dict[str, Any], wanted: str, pages: int = 30) -> tuple[str, int]:
    """Call read_output as named, then each page's named next call, until `wanted` shows; its text and the pages read."""
    for read in range(1, pages + 1):
        result = client.call("read_output", arguments).result
        assert not result.get("isError"), result
        text = text_of(result["content"])
        if wanted in text:
            return text, read
        arguments = named_call(text[text.rindex("[more: "):])
    raise AssertionError(f"{wanted!r} not read in {pages} pages")


def test_a_fact_in_the_cut_middle_of_a_3000_line_print_is_read_through_the_call_the_notice_names(connect: Any) -> None:
    client = connect("stdio", HANDSHAKE)
    text = text_of(client.call("execute_code", {"code": LOG}, timeout=120).result["content"])
    assert FACT not in text and "step  3000 ok" in text, "the model's text is cut around line 1,500"
    call = named_call(text)
    assert set(call) == {"uri", "line"} and 1 < call["line"] < 1500, call

    page, read = page_until(client, call, FACT)
    assert read > 1 and page.splitlines()[0].startswith(f"{call['uri']}, lines ")

    found = text_of(client.call("read_output", {"uri": call["uri"], "pattern": "reactor key", "context": 1}).result["content"])
    assert f"1500: {FACT}" in found and "1499: step  1499 ok" in found and "1501: step  1501 ok" in found
    assert found.startswith(f"{call['uri']}: 1 line of 3000 match 'reactor key'"), found[:200]


def test_a_cut_cell_output_is_read_through_the_call_its_notices_name(connect: Any, root: Any) -> None:
    client = connect("stdio", HANDSHAKE)
    name = f"{unique('paged')}.ipynb"
    assert not client.call("use_notebook", {"notebook": name, "create": True}).result.get("isError")
    ran = client.call("insert_execute_code_cell", {"notebook": name, "source": LOG}, timeout=120).result
    text = text_of(ran["content"])
    call = named_call(text)
    assert FACT not in text and call["uri"].startswith(f"cell-output:///{name}/cells/"), call
    page_until(client, call, FACT)

    read = text_of(client.call("read_cell", {"notebook": name, "cell_index": 0}).result["content"])
    again = named_call(read)
    assert FACT not in read and again == call, "read_cell's notice names the same call"
    found = text_of(client.call("read_output", {"uri": again["uri"], "pattern": "reactor"}).result["content"])
    assert f"1500: {FACT}" in found


def test_pages_carry_next_cursor_in_the_structured_variants(connect: Any, variant_schemas: Any) -> None:
    """At 2026-12-01 a program pages with nextCursor: each page's lines follow on from the last, to the end."""
    client = connect("stdio", OUTPUTS_VERSION)
    wanted = [sel("assistant", "content"), sel("programmatic", "structured")]
    ran = client.call("execute_code", {"code": LOG}, requested=wanted, timeout=120)
    call = named_call(text_of(output_for(outputs_of(ran), "assistant", "content")["content"]))
    arguments: dict[str, Any] = {"uri": call["uri"]}
    numbers: list[int] = []
    for _ in range(40):
        reply = client.call("read_output", arguments, requested=[sel("programmatic", "structured"), sel("assistant", "structured")])
        page = output_for(outputs_of(reply), "programmatic", "structured")["structuredContent"]
        validate(variant_schemas[("read_output", "programmatic", "structured")], page, "programmatic/structured")
        structured = output_for(outputs_of(reply), "assistant", "structured")["structuredContent"]
        validate(variant_schemas[("read_output", "assistant", "structured")], structured, "assistant/structured")
        numbers += [line["number"] for line in page["lines"]]
        assert structured.get("nextCursor") == page.get("nextCursor")
        if "nextCursor" not in page:
            break
        arguments = {"uri": call["uri"], "cursor": page["nextCursor"]}
    assert numbers == list(range(1, 3001)), "every line once, in order"


def test_bad_arguments_get_clear_errors(connect: Any) -> None:
    client = connect("stdio", HANDSHAKE)
    for arguments, said in (({"uri": "file:///etc/passwd"}, "uri must name an output"),
                            ({"uri": "mcp-variants://runs/0123456789abcdef/outputs/0"}, "not kept for this client"),
                            ({"uri": "cell-output:///../x.ipynb/cells/a/outputs/0"}, "inside the root")):
        result = client.call("read_output", arguments).result
        assert result.get("isError") and said in text_of(result["content"]), result
