"""A seeded wire fuzzer on stdio and streamable HTTP (issue 13): valid calls, mutated ones and bytes that are
no message, at several protocol versions. For every message:

- a request with an id is answered exactly once (with that id; id null only where the id could not be read),
  a notification or a client's response never, a batch with one array;
- every error code is a standard one (JSON-RPC 2.0's, MCP's -32020/-32021/-32022);
- a tools/call served at 2026-12-01 has exactly the requested outputs (assistant/content when none were
  requested), each structured one valid against its variant's schema (the error shape when isError); at an
  older version `structuredContent` is valid against the tool's outputSchema;
- every 2026-12-01 answer is valid under the 2026-12-01 wire schema, and no bridge-private key reaches the wire.

The messages are sent one at a time, each followed on stdio by a ping whose answer marks its end.
WIRE_FUZZ_MESSAGES (default 1500 per transport) and WIRE_FUZZ_SEED (default 13) change how many and which.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.conformance.wire_schema import validate_wire_message
from support.raw_wire import NO_ANSWER, STANDARD_CODES, answers_after, expected_answer, expected_for_value, is_answer, loads_deep
from support.servers import HttpServer
from support.wire import OUTPUTS_VERSION, UI_EXTENSIONS, WireClient, check_no_private_keys, stdio_target

from .fuzz_messages import TOOLS, Fuzzed, Fuzzer

pytestmark = [pytest.mark.wire, pytest.mark.timeout(900)]

MESSAGES = int(os.environ.get("WIRE_FUZZ_MESSAGES", "1500"))
SEED = int(os.environ.get("WIRE_FUZZ_SEED", "13"))
REPO = Path(__file__).resolve().parents[2]
ERROR_SHAPE = Draft202012Validator(json.loads((REPO / "variants" / "shapes" / "error.json").read_text()))
# (version, stateless): the connections fuzzed, by weight
CONNECTIONS = [(OUTPUTS_VERSION, True)] * 5 + [("2026-07-28", True)] * 2 + [("2025-03-26", False), ("2025-11-25", False)]
NOTEBOOK = {"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": "1+1", "outputs": [], "execution_count": None},
                      {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# title"}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-root")
    (root / "sub").mkdir()
    (root / "sub" / "data.txt").write_text("x")
    return root


@pytest.fixture(autouse=True)
def fresh_notebook(fuzz_root: Path) -> None:
    (fuzz_root / "fuzz.ipynb").write_text(json.dumps(NOTEBOOK))


class Judge:
    """The schemas the answers are judged by, from the server's own listings (judged with the test's validator)."""

    def __init__(self, client: WireClient, legacy: dict[str, WireClient]) -> None:
        tools = client.tools()
        self.variants = {name: [{"audience": v["audience"], "format": v["format"]} for v in tool["outputVariants"]]
                         for name, tool in tools.items()}
        self.schemas = {(name, v["audience"], v["format"]): v.get("schema")
                        for name, tool in tools.items() for v in tool["outputVariants"]}
        self.input_schemas = {name: tool["inputSchema"] for name, tool in tools.items()}
        self.output_schemas = {version: {name: tool.get("outputSchema") for name, tool in c.tools().items()}
                               for version, c in legacy.items()}
        self.counts: Counter[str] = Counter()

    def fuzzer(self, seed: int) -> Fuzzer:
        return Fuzzer(seed, {t: self.input_schemas[t] for t in TOOLS}, {t: self.variants[t] for t in TOOLS})

    def answers(self, fuzzed: Fuzzed, answers: list[Any], batches_served: bool) -> None:
        """`answers` are all that came for `fuzzed` (its end marked): exactly what JSON-RPC says it gets."""
        expected = expected_answer(fuzzed.data)
        allowed = [expected]
        if fuzzed.kind.startswith("bytes:"):  # broken bytes: the id when they still let it be read, or null
            lenient = loads_deep(fuzzed.data.decode("utf-8", "replace").encode())
            allowed += [None, lenient.get("id") if isinstance(lenient, dict) else None]
        where = f"{fuzzed.kind}: {fuzzed.data[:300]!r} -> {json.dumps(answers)[:1500]}"
        self.counts[fuzzed.kind.split(":")[0]] += 1
        if expected is NO_ANSWER:
            assert answers == [], f"answered what must not be: {where}"
            return
        if expected is list:
            self.batch(fuzzed, answers, batches_served, where)
            return
        assert len(answers) == 1 and isinstance(answers[0], dict), f"not exactly one answer: {where}"
        answer = answers[0]
        assert answer["id"] in allowed, f"answer with the wrong id: {where}"
        self.message(fuzzed, answer, where)

    def batch(self, fuzzed: Fuzzed, answers: list[Any], served: bool, where: str) -> None:
        elements = json.loads(fuzzed.data)
        wanted = Counter(json.dumps(e) for e in map(expected_for_value, elements) if e is not NO_ANSWER)
        if served and not wanted:
            assert answers == [], f"a batch of notifications was answered: {where}"
            return
        assert len(answers) == 1 and isinstance(answers[0], list), f"a batch is answered with one array: {where}"
        got = Counter(json.dumps(item.get("id")) for item in answers[0])
        assert got == (wanted or Counter({"null": 1})), f"the batch's answers do not match its requests: {where}"
        for item in answers[0]:
            if not served:  # -32600, or the element's own defect
                assert item.get("error", {}).get("code") in (-32600, -32602, -32700), f"a refused batch: {where}"
            self.message(fuzzed, item, where)

    def message(self, fuzzed: Fuzzed, answer: dict[str, Any], where: str) -> None:
        check_no_private_keys(answer)
        assert answer.get("jsonrpc") == "2.0" and ("result" in answer) != ("error" in answer), f"not a response: {where}"
        if "error" in answer:
            assert answer["error"].get("code") in STANDARD_CODES, f"a code that is not standard: {where}"
            assert isinstance(answer["error"].get("message"), str), where
            self.counts["error"] += 1
        if fuzzed.version == OUTPUTS_VERSION and fuzzed.kind not in ("batch",):
            method = _method_of(fuzzed.data)
            problems = validate_wire_message(answer, method if "result" in answer else None)
            assert not problems, f"breaks the 2026-12-01 wire schema: {problems[:3]}: {where}"
        if fuzzed.kind == "tools/call" and "result" in answer:
            self.call_result(fuzzed, answer["result"], where)

    def call_result(self, fuzzed: Fuzzed, result: dict[str, Any], where: str) -> None:
        self.counts["result"] += 1
        tool = fuzzed.tool or ""
        if fuzzed.version == OUTPUTS_VERSION:
            requested = fuzzed.requested or [{"audience": "assistant", "format": "content"}]
            outputs = result.get("outputs")
            assert isinstance(outputs, list), where
            assert Counter((o["audience"], o["format"]) for o in outputs) == Counter((s["audience"], s["format"]) for s in requested), \
                f"not exactly the requested outputs: {where}"
            for output in outputs:
                if output["format"] == "content":
                    assert output["content"] and "structuredContent" not in output, where
                    continue
                schema = self.schemas[(tool, output["audience"], "structured")]
                validator = ERROR_SHAPE if result.get("isError") else Draft202012Validator(schema)
                errors = [e.message for e in validator.iter_errors(output["structuredContent"])]
                assert not errors, f"{output['audience']}/structured breaks its schema: {errors[:3]}: {where}"
            return
        assert isinstance(result.get("content"), list), where
        schema = self.output_schemas.get(fuzzed.version or "", {}).get(tool)
        if "structuredContent" in result and schema and not result.get("isError"):
            errors = [e.message for e in Draft202012Validator(schema).iter_errors(result["structuredContent"])]
            assert not errors, f"structuredContent breaks the outputSchema: {errors[:3]}: {where}"


def _method_of(data: bytes) -> str | None:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    method = value.get("method") if isinstance(value, dict) else None
    return method if isinstance(method, str) else None


# ---- stdio --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stdio_fuzz(fuzz_root: Path) -> Iterator[StdioTarget]:
    target = stdio_target(fuzz_root)
    yield target
    target.close()


def test_stdio_fuzz(stdio_fuzz: StdioTarget) -> None:
    judge = Judge(WireClient(stdio_fuzz, OUTPUTS_VERSION, UI_EXTENSIONS),
                  {v: WireClient(stdio_fuzz, v, None) for v in ("2026-07-28", "2025-11-25")})
    fuzzer = judge.fuzzer(SEED)
    processes = {version: stdio_fuzz.process_for(version) for version, _ in set(CONNECTIONS)}
    for number in range(MESSAGES):
        version, stateless = fuzzer.random.choice(CONNECTIONS)
        fuzzed = fuzzer.message(version, stateless)
        served = version == "2025-03-26"
        answers = answers_after(processes[version], fuzzed.data + b"\n", expected=_expected_count(fuzzed, served),
                                barrier_id=f"barrier-{number}")
        judge.answers(fuzzed, answers, batches_served=served)
    _report(judge)


def _expected_count(fuzzed: Fuzzed, batches_served: bool) -> int:
    expected = expected_answer(fuzzed.data)
    if expected is NO_ANSWER:
        return 0
    if expected is list and batches_served:
        return 1 if any(expected_for_value(e) is not NO_ANSWER for e in json.loads(fuzzed.data)) else 0
    return 1


# ---- streamable HTTP ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_fuzz(fuzz_root: Path) -> Iterator[HttpServer]:
    server = HttpServer(fuzz_root, log=fuzz_root.parent / "fuzz-http.log")
    yield server
    server.close()


def test_http_fuzz(http_fuzz: HttpServer) -> None:
    target = http_fuzz.target
    judge = Judge(WireClient(target, OUTPUTS_VERSION, UI_EXTENSIONS),
                  {v: WireClient(target, v, None) for v in ("2026-07-28", "2025-11-25")})
    fuzzer = judge.fuzzer(SEED + 1)
    sessions = {version: target.session(version, None)[0] for version, stateless in set(CONNECTIONS) if not stateless}
    for _ in range(MESSAGES):
        version, stateless = fuzzer.random.choice(CONNECTIONS)
        fuzzed = fuzzer.message(version, stateless)
        headers = _headers(fuzzed, version, sessions.get(version), fuzzer)
        trip = http_fuzz.post(fuzzed.data, headers, timeout=60)
        assert trip.status is not None and trip.status < 500, \
            f"HTTP {trip.status} for {fuzzed.kind}: {fuzzed.data[:300]!r}: {trip.raw[:500]!r}"
        expected = expected_answer(fuzzed.data)
        if expected is NO_ANSWER and trip.status == 202:
            assert not trip.raw.strip(), trip.raw[:300]
            judge.counts[fuzzed.kind.split(":")[0]] += 1
            continue
        if expected is list:
            answers = [json.loads(trip.raw)]
            judge.batch(fuzzed, answers, served=False, where=f"{fuzzed.data[:300]!r} -> {trip.raw[:500]!r}")
            continue
        answers = [m for m in trip.messages if is_answer(m)]
        if expected is NO_ANSWER:  # a notification the transport refused: one error, id null
            assert trip.status >= 400 and len(answers) == 1 and answers[0].get("id") is None, \
                f"HTTP {trip.status} for a notification: {fuzzed.data[:300]!r}: {trip.raw[:500]!r}"
            continue
        judge.answers(fuzzed, answers, batches_served=False)
    _report(judge)


def _headers(fuzzed: Fuzzed, version: str, session: str | None, fuzzer: Fuzzer) -> dict[str, str]:
    """The routing headers a client of `version` sends with this message; now and then one is wrong or missing."""
    headers = {"MCP-Protocol-Version": version}
    if session:
        headers["Mcp-Session-Id"] = session
    try:
        value = json.loads(fuzzed.data)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        headers["Mcp-Method"] = value["method"]
        name = (value.get("params") or {}).get("name") if isinstance(value.get("params"), dict) else None
        if isinstance(name, str):
            headers["Mcp-Name"] = name
    roll = fuzzer.random.random()
    if roll < 0.03:
        headers.pop("MCP-Protocol-Version")
    elif roll < 0.06:
        headers["Mcp-Method"] = "tools/list"
    return headers


def _report(judge: Judge) -> None:
    print(f"\nfuzzed {MESSAGES} messages (seed {SEED}): {dict(sorted(judge.counts.items()))}")
    assert judge.counts["result"] > MESSAGES // 20, "too few calls were served to judge their outputs"
