"""Every JSONPath query of every golden vector means the same to the npm RFC 9535 library
(jsonpath-rfc9535, pinned in package.json) as to the suite's own evaluator (python-jsonpath, strict).

The documents are real: the whole suite (server and host vectors) runs against our server on
stdio, and every query it evaluates is recorded with the document it was evaluated on (the
suite's `checks.select`, observed, not replaced). A query of a vector that the run never
evaluates (an `over` whose quantifier had something to range over, a check under a `forEach`
with no values) is evaluated on each document its own vector's other queries were, so that every
query of every vector is replayed. replay_jsonpath.mjs evaluates each with the npm library; the
two must select the same values, in the same order.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance import checks
from mcp_variants.conformance.runner import RunConfig, all_vectors, run
from mcp_variants.conformance.wire import StdioTarget
from support.outside import HERE, node_env, node_package
from support.servers import serve_command

Case = tuple[str, int]  # (query, index of its document)


def vector_queries(node: Any) -> Iterator[str]:
    """Every JSONPath query in a vector: the values of a check's path keys, at any depth."""
    if isinstance(node, dict):
        if isinstance(node.get("op"), str):
            yield from (node[k] for k in checks.PATH_KEYS if isinstance(node.get(k), str))
        for value in node.values():
            yield from vector_queries(value)
    elif isinstance(node, list):
        for item in node:
            yield from vector_queries(item)


def template(query: str) -> re.Pattern[str]:
    """A vector's query with its `{{name}}` bindings as wildcards: what its rendered forms look like."""
    return re.compile("".join(".*?" if part.startswith("{{") else re.escape(part) for part in re.split(r"(\{\{\w+\}\})", query)))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Case]]:
    """(documents, cases): every query every vector makes, each with a real document."""
    root = tmp_path_factory.mktemp("jsonpath-root")
    documents: list[Any] = []
    by_identity: dict[int, int] = {}
    alive: list[Any] = []  # what by_identity's ids name, kept so that no id is reused
    pending: list[Case] = []
    per_vector: dict[str, list[Case]] = {}
    original = checks.select

    def observed(path: Any, document: Any) -> list[Any]:
        index = by_identity.get(id(document))
        if index is None:
            index = by_identity[id(document)] = len(documents)
            alive.append(document)
            documents.append(json.loads(json.dumps(document)))  # a copy as it is now: the runner's documents grow
        pending.append((path, index))
        return original(path, document)

    def progress(vector: Any, result: dict[str, Any]) -> None:
        assert result["status"] == "pass", (result["id"], result["reason"])
        per_vector[vector["id"]] = list(dict.fromkeys(pending))
        pending.clear()

    checks.select = observed
    target = StdioTarget(shlex.join(serve_command(root)), cwd=str(root))
    try:
        run(target, all_vectors(), RunConfig(), progress)
    finally:
        checks.select = original
        target.close()
    cases: list[Case] = []
    for vector in all_vectors():
        seen = per_vector[vector["id"]]
        cases += seen
        own_documents = sorted({index for _, index in seen})
        for query in dict.fromkeys(vector_queries(vector)):
            if not any(template(query).fullmatch(path) for path, _ in seen):
                assert "{{" not in query, f"{vector['id']}: {query} is never evaluated and has bindings to fill"
                cases += [(query, index) for index in own_documents]
    return documents, list(dict.fromkeys(cases))


def test_every_query_of_every_vector_selects_the_same_with_the_npm_rfc_9535_library(
        node_bin: Path, tmp_path: Path, recorded: tuple[list[Any], list[Case]]) -> None:
    node_package("jsonpath-rfc9535/dist/esm/index.js")
    documents, cases = recorded
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"documents": documents, "cases": [{"path": p, "document": d} for p, d in cases]}))
    done = subprocess.run([str(node_bin), str(HERE / "replay_jsonpath.mjs"), str(replay)], check=False, capture_output=True,
                          text=True, timeout=300, env=node_env(), cwd=HERE)
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout)
    assert len(answers) == len(cases)
    differ = [(path, ours, theirs) for (path, d), theirs in zip(cases, answers, strict=True)
              if (ours := {"values": checks.select(path, documents[d])}) != theirs]
    assert not differ, "\n".join(f"{p}: python-jsonpath {json.dumps(o)[:300]} / jsonpath-rfc9535 {json.dumps(t)[:300]}"
                                 for p, o, t in differ[:10])
    queries = {template(q) for v in all_vectors() for q in vector_queries(v)}
    assert all(any(q.fullmatch(p) for p, _ in cases) for q in queries), "a vector's query was not replayed"
    selected = sum(bool(a["values"]) for a in answers)
    assert len(cases) > 500 and selected > len(cases) // 2, (len(cases), selected, "mostly empty selections")
