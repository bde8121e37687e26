"""JSON-RPC framing (protocol/jsonrpc.py): the answer each defective message gets (issue 13)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mcp_variants.protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_DEPTH,
    PARSE_ERROR,
    Batch,
    JsonRpcMessage,
    Kind,
    Refusal,
    check_bytes,
    dumps,
    nesting_depth,
    peek_id,
)
from support.oracles import PROPERTY

M = {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": {}}


def refusal(text: bytes) -> Refusal:
    checked = check_bytes(text)
    assert isinstance(checked, Refusal), checked
    return checked


@pytest.mark.parametrize(("text", "code", "request_id"), [
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}', INVALID_PARAMS, 1),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}', INVALID_PARAMS, 1),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}', INVALID_PARAMS, 1),
    (b'{"jsonrpc":"2.0","id":"s","method":"tools/call","params":true}', INVALID_PARAMS, "s"),
    (b'{"jsonrpc":"2.0","id":7,"method":tools/call}', PARSE_ERROR, None),
    (b"42", INVALID_REQUEST, None),
    (b"[]", INVALID_REQUEST, None),
    (b'"x"', INVALID_REQUEST, None),
    (b'{"jsonrpc":"1.0","id":4,"method":"tools/list"}', INVALID_REQUEST, 4),
    (b'{"id":5,"method":"tools/list"}', INVALID_REQUEST, 5),
    (b'{"jsonrpc":"2.0","id":6,"method":5}', INVALID_REQUEST, 6),
    (b'{"jsonrpc":"2.0","id":9.5,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"path":"\\ud800"}}', PARSE_ERROR, 8),
    (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"path":"\xff"}}', PARSE_ERROR, 9),
    (b'{"jsonrpc":"2.0","id":10,"params":{"a":' + b"[" * 300 + b"]" * 300 + b'},"method":"x"}', INVALID_REQUEST, 10),
    (b'{"jsonrpc":"2.0","id":11,"method":"x","params":{"a":' + b"[" * 2000 + b"]" * 2000 + b"}}", INVALID_REQUEST, 11),
    (b'{"jsonrpc":"2.0","id":12}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":12,"result":{},"error":{"code":1,"message":"m"}}', INVALID_REQUEST, None),
    (b"\xef\xbb\xbf{}", PARSE_ERROR, None),
    (b"", PARSE_ERROR, None),
])
def test_each_defect_gets_its_code_and_the_id_when_it_can_be_read(text: bytes, code: int, request_id: Any) -> None:
    """The issue's hand-made cases, one by one: a code of JSON-RPC 2.0, and the id only when the
    message has a valid one to give (id null otherwise)."""
    answer = refusal(text)
    assert (answer.code, answer.id) == (code, request_id), answer
    response = answer.response()
    assert response["jsonrpc"] == "2.0" and response["id"] == request_id and response["error"]["message"]
    json.loads(dumps(response))  # always encodable


def test_a_notification_valid_in_json_rpc_is_not_answered_and_an_invalid_message_is() -> None:
    """JSON-RPC 2.0: params by position make a valid notification (not a valid MCP one: dropped); a method
    that is no string, a wrong version or scalar params make an invalid Request, answered with id null."""
    assert refusal(b'{"jsonrpc":"2.0","method":"notifications/x","params":[]}').answer is False
    for text in (b'{"jsonrpc":"2.0","method":5}', b'{"jsonrpc":"1.0","method":"x"}', b'{"jsonrpc":"2.0","method":"x","params":"p"}'):
        answer = refusal(text)
        assert answer.answer is True and answer.id is None, answer


@pytest.mark.parametrize(("text", "kind"), [
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + json.dumps(M).encode() + b"}}", Kind.REQUEST),
    (b'{"jsonrpc":"2.0","id":"x","method":"tools/call","params":null}', Kind.REQUEST),
    (b'{"jsonrpc":"2.0","id":-3,"method":"ping"}', Kind.REQUEST),
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', Kind.NOTIFICATION),
    (b'{"jsonrpc":"2.0","id":3,"result":{}}', Kind.RESPONSE),
    (b'{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}', Kind.RESPONSE),
])
def test_well_formed_messages_pass(text: bytes, kind: Kind) -> None:
    checked = check_bytes(text)
    assert isinstance(checked, JsonRpcMessage) and checked.kind is kind, checked


def test_a_batch_is_checked_element_by_element() -> None:
    checked = check_bytes(b'[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]')
    assert isinstance(checked, Batch)
    first, second, third = checked.elements
    assert isinstance(first, JsonRpcMessage) and first.id == 1
    assert isinstance(second, Refusal) and second.code == INVALID_REQUEST
    assert isinstance(third, JsonRpcMessage) and third.kind is Kind.NOTIFICATION


def test_nesting_depth_counts_containers() -> None:
    assert nesting_depth(5) == 0
    assert nesting_depth({"a": 1}) == 1
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    deep: Any = []
    for _ in range(MAX_DEPTH + 50):
        deep = [deep]
    assert nesting_depth(deep) == MAX_DEPTH + 1  # counted no further than the limit


@pytest.mark.parametrize(("prefix", "request_id"), [
    (b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"x","arguments":{"a":"xxxxxxx', 77),
    (b' { "id" : "abc" , "jsonrpc"', "abc"),
    (b'{"jsonrpc":"2.0","method":"tools/call","params":{"a":"xxxxxxxxxxxxxxxxxxxxx', None),  # the id comes after
    (b'{"jsonrpc":"2.0","id":true,', None),
    (b'[{"id":1}', None),
    (b'{"jsonrpc":"2.0","id":7,"method":tools/call}', 7),
    (b"\xff\xfe", None),
])
def test_peek_id_reads_the_id_before_the_first_unreadable_value(prefix: bytes, request_id: Any) -> None:
    assert peek_id(prefix) == request_id


@PROPERTY
@given(request_id=st.integers(min_value=-(2**53), max_value=2**53) | st.text(max_size=20), cut=st.integers(min_value=0, max_value=400))
@example(request_id='"method', cut=30)  # CI's find: the id's own text holds '"method"'
def test_peek_id_finds_an_early_id_in_any_cut_of_a_request(request_id: int | str, cut: int) -> None:
    """However much of the request arrived, its id is found once its bytes are all there, and never a wrong one."""
    text = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"code": "x" * 300}}).encode()
    found = peek_id(text[:cut])
    # the id is whole once the comma after it arrived; found from the encoding, not by searching the text,
    # since an id may itself hold '"method"'
    id_end = len(json.dumps({"jsonrpc": "2.0", "id": request_id}))
    if cut >= id_end:
        assert found == request_id
    else:
        assert found in (None, request_id)
