"""Outputs as resources (output_links.py): the run store's byte budget and owners, the URIs, an output's
representations, and the cut text naming the resource that holds the rest (tools/shared/executions.py)."""

from __future__ import annotations

import asyncio
import base64

from mcp_variants.output_links import (
    OutputKeeper,
    OutputStore,
    cell_output_uri,
    parse_cell_output_uri,
    parse_run_uri,
    representations,
    run_uri,
)
from mcp_variants.tools.shared.executions import output_blocks, outputs_structured
from support.output_stores import lru_within_budget, owned_and_forgotten, stream


def test_the_store_evicts_the_least_recently_used_runs_beyond_its_byte_budget():
    store = OutputStore(max_bytes=250)
    asyncio.run(lru_within_budget(store))
    assert store.size <= 1000 and len(store) == 1


def test_a_run_is_read_by_its_owner_only_and_forgotten_with_its_session():
    store = OutputStore()
    asyncio.run(owned_and_forgotten(store))
    assert store.size == 0


def test_a_keeper_gives_one_uri_per_output_and_none_for_a_silent_run():
    async def scenario() -> None:
        keeper = OutputKeeper(OutputStore()).for_owner("stdio")
        assert await keeper.keep([]) == ()
        uris = await keeper.keep([stream("x"), stream("y")])
        assert [parse_run_uri(uri)[1] for uri in uris] == [0, 1]  # type: ignore[index]
        run, _ = parse_run_uri(uris[0])  # type: ignore[misc]
        assert uris[1] == run_uri(run, 1) and (await keeper.store.get(run, 1, "stdio"))["text"] == "y"

    asyncio.run(scenario())


def test_cell_output_uris_round_trip_and_keep_the_path_for_the_root_check():
    uri = cell_output_uri("sub dir/a.ipynb", "c0ffee", 2)
    assert uri == "cell-output:///sub%20dir/a.ipynb/cells/c0ffee/outputs/2"
    assert parse_cell_output_uri(uri) == ("sub dir/a.ipynb", "c0ffee", 2)
    assert parse_cell_output_uri("cell-output:///../x.ipynb/cells/a/outputs/0") == ("../x.ipynb", "a", 0)
    for bad in ("cell-output:///a.txt/cells/a/outputs/0", "cell-output:///a.ipynb/cells/a", "notebook:///a.ipynb"):
        assert parse_cell_output_uri(bad) is None
    assert parse_run_uri("mcp-variants://runs/zz/outputs/0") is None


def test_an_output_reads_as_its_richest_representation_first():
    png = base64.b64encode(b"\x89PNG fake").decode()
    bundle = {"output_type": "display_data", "metadata": {},
              "data": {"text/plain": "<Figure>", "image/png": png + "\n", "application/json": {"a": 1}, "text/html": ["<b>", "x</b>"]}}
    assert representations(bundle) == [("image/png", b"\x89PNG fake"), ("text/html", "<b>x</b>"),
                                       ("application/json", '{"a": 1}'), ("text/plain", "<Figure>")]
    assert representations(stream("\x1b[31mred\x1b[0m\n")) == [("text/plain", "red\n")]
    error = {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["\x1b[1mTrace\x1b[0m", "E: v"]}
    assert representations(error) == [("text/plain", "Trace\nE: v")]


def test_a_cut_text_names_the_read_output_calls_of_the_outputs_it_cut():
    outputs = [stream("short\n"), {"output_type": "execute_result", "data": {"text/plain": "x" * 100}, "metadata": {}}]
    uris = ["u://0", "u://1"]
    (block,) = output_blocks(outputs, 50, for_model=True, uris=uris)
    call = 'line 1 of 1: read_output(uri="u://1", line=1), or add pattern="<regex>" to find lines]\n'
    assert f"more bytes cut; {call}" in block["text"] and "u://0" not in block["text"]
    assert block["text"].endswith("x" * 24 + "\n"), "the end of the output is kept"
    (person,) = output_blocks(outputs, 50, for_model=False, uris=uris)
    assert call in person["text"], "a person's text names the same call"
    (unnamed,) = output_blocks(outputs, 50, for_model=True)
    assert "request programmatic/structured for the full output]\n" in unnamed["text"]
    many = output_blocks([stream("y" * 60)] + [{"output_type": "error", "ename": "E", "evalue": str(i), "traceback": []}
                                               for i in range(5)], 50, for_model=True, uris=[f"u://{i}" for i in range(6)])
    assert ('read_output(uri="u://0", line=1); line 1 of 1: read_output(uri="u://1", line=1)' in many[0]["text"]
            and 'u://2' not in many[0]["text"]), "each cut output's call, the first from its first cut line"
    structured = outputs_structured("code.execute", outputs, 50, uris=uris)
    assert structured["truncated"] is True and structured["fullOutputs"] == [{"item": 1, "uri": "u://1", "bytes": 100}]
    assert "fullOutputs" not in outputs_structured("code.execute", outputs, 500, uris=uris)
