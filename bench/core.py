"""The SEP-3279 core's cost per call: negotiate + select + project + validate.

A realistic internal result (an execute_code ExecutionView whose outputs hold about
2 KB of text: a stdout log, a stderr warning and a DataFrame-like execute_result) is
turned into the wire result of a tools/call, exactly as the server's handler does
between the tool's return and the SDK:

    era_for(version)            negotiate: the request's era
    negotiated extensions       (client extensions & server extensions)
    select(params, ...)         selection: requestedOutputs -> selectors
    build_result(...)           projection + validation of every structured output
                                (both through the public server API's ToolSet.select / ToolSet.project)

Every call is timed on its own with perf_counter_ns (so a median and a p99 can be
reported), after a warm-up, with the garbage collector left on as in the server.
Validation is also timed on its own: the precompiled jsonschema-rs validator of each
structured output. Budget: the core under 50 us per call.

Run alone: python -m bench.core [--iterations N]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp_variants.catalog import load_declarations, load_shape, variants_dir
from mcp_variants.jupyter.runtime import Execution
from mcp_variants.protocol.projection import Outcome
from mcp_variants.protocol.types import (
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_EXTENSION,
)
from mcp_variants.protocol.validation import OutputValidators
from mcp_variants.protocol.versions import era_for
from mcp_variants.sdk.lowlevel import ToolSet, VariantTool
from mcp_variants.tools import TOOLS
from mcp_variants.tools.shared.executions import ExecutionView, assistant_structured, programmatic_structured

from . import cli
from .stats import summarize

BUDGET_US = 50.0
SERVER_EXTENSIONS = frozenset({UI_EXTENSION})


# ---- the typical result --------------------------------------------------------------------------


def typical_execution() -> Execution:
    """An execution whose outputs carry about 2 KB of text, as a training-loop cell prints."""
    stdout = "".join(
        f"epoch {i:02d}  loss={0.6931 / (i + 1):.4f}  acc={0.5 + i * 0.021:.4f}  lr=1.0e-03  {12.5 + i * 0.37:.2f}s\n"
        for i in range(22)
    )
    stderr = (
        "/opt/conda/lib/python3.11/site-packages/sklearn/utils/validation.py:1183: DataConversionWarning: "
        "A column-vector y was passed when a 1d array was expected. Please change the shape of y to "
        "(n_samples,), for example using ravel().\n  y = column_or_1d(y, warn=True)\n"
    )
    frame = "      model  epochs    loss     acc   f1_macro\n" + "".join(
        f"{i:<4}  mlp-{i:<3}  {10 + i:>5}  {0.3 - i * 0.01:.4f}  {0.81 + i * 0.005:.4f}  {0.79 + i * 0.004:.4f}\n"
        for i in range(12)
    )
    outputs: list[dict[str, Any]] = [
        {"output_type": "stream", "name": "stdout", "text": stdout},
        {"output_type": "stream", "name": "stderr", "text": stderr},
        {"output_type": "execute_result", "data": {"text/plain": frame.rstrip("\n")}, "metadata": {}, "execution_count": 42},
    ]
    return Execution(
        kernel_id="5f1c2a0e-8d4b-4c47-9a53-0b7f3e2d9c11",
        status="ok",
        execution_count=42,
        outputs=outputs,
        duration_ms=1834.271,
    )


def output_text_bytes(execution: Execution) -> int:
    total = 0
    for output in execution.outputs:
        if output["output_type"] == "stream":
            total += len(output["text"].encode())
        else:
            total += sum(len(v.encode()) for v in output.get("data", {}).values() if isinstance(v, str))
    return total


# ---- scenarios -----------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    version: str
    params: dict[str, Any]
    description: str


META_2026 = {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": {}}

SCENARIOS = (
    Scenario(
        "2026-12-01 assistant/content + programmatic/structured",
        "2026-12-01",
        {
            "name": "execute_code",
            "arguments": {"code": "train()"},
            "requestedOutputs": [
                {"audience": "assistant", "format": "content"},
                {"audience": "programmatic", "format": "structured"},
            ],
            "_meta": META_2026,
        },
        "two outputs; the programmatic one is validated against its schema",
    ),
    Scenario(
        "2026-12-01 default (assistant/content)",
        "2026-12-01",
        {"name": "execute_code", "arguments": {"code": "train()"}, "_meta": META_2026},
        "no requestedOutputs: the assistant/content fallback, nothing to validate",
    ),
    Scenario(
        "2025-11-25 legacy pair (content + structuredContent)",
        "2025-11-25",
        {"name": "execute_code", "arguments": {"code": "train()"}},
        "content from assistant/content, structuredContent from assistant/structured (validated)",
    ),
)


class Core:
    """The objects the server builds once at start-up, without the kernel runtime: the server API's ToolSet
    (sdk/_toolset.py), through which the server selects and projects, as any server on the public API does."""

    def __init__(self) -> None:
        directory = variants_dir()
        self.declarations = load_declarations(directory)
        self.validators = OutputValidators(self.declarations.values(), load_shape(directory, "error.json"))
        self.tools = ToolSet(VariantTool(d, TOOLS[n].projectors) for n, d in self.declarations.items())
        self.execution = typical_execution()
        self.view = ExecutionView(self.execution, "code.execute", 20_000)
        self.outcome = Outcome(value=self.view)

    def per_call(self, scenario: Scenario) -> Callable[[], dict[str, Any]]:
        """One tools/call's core work, as ToolSet.call does it around the tool run."""
        tools, outcome = self.tools, self.outcome
        params, version = scenario.params, scenario.version
        client_extensions: dict[str, Any] = params.get("_meta", {}).get("io.modelcontextprotocol/clientCapabilities", {}).get("extensions",
                                                                                                                              {})

        def call() -> dict[str, Any]:
            era = era_for(version)
            extensions = frozenset(client_extensions.keys() & SERVER_EXTENSIONS)
            selectors = tools.select("execute_code", params, era, extensions)
            return tools.project("execute_code", selectors, era, outcome)

        return call


# ---- timing --------------------------------------------------------------------------------------


def time_calls(fn: Callable[[], Any], iterations: int, warmup: int) -> list[float]:
    """Per-call wall time in microseconds, each call timed on its own."""
    for _ in range(warmup):
        fn()
    clock = time.perf_counter_ns
    samples = [0.0] * iterations
    for i in range(iterations):
        start = clock()
        fn()
        samples[i] = (clock() - start) / 1000.0
    return samples


def timer_overhead(iterations: int = 20_000) -> float:
    """Median cost of timing an empty call, in microseconds (included in every sample)."""
    samples = time_calls(lambda: None, iterations, 1000)
    return summarize(samples)["median"]


def run(iterations: int = 20_000, warmup: int = 2_000, rounds: int = 5) -> dict[str, Any]:
    """Time every scenario in `rounds` interleaved rounds; return a JSON-able report."""
    core = Core()
    per_round = max(iterations // rounds, 1)

    cases: dict[str, Callable[[], Any]] = {}
    notes: dict[str, dict[str, Any]] = {}
    for scenario in SCENARIOS:
        call = core.per_call(scenario)
        result = call()  # also checks that the scenario is a success
        assert "isError" not in result, result
        cases[scenario.name] = call
        notes[scenario.name] = {
            "kind": "core",
            "description": scenario.description,
            "result_json_bytes": len(json.dumps(result, separators=(",", ":")).encode()),
        }

    prog_value = programmatic_structured(core.view)
    asst_value = assistant_structured(core.view)
    validation = {
        "validate programmatic/structured": lambda: core.validators.problems("execute_code", PROGRAMMATIC_STRUCTURED, prog_value,
                                                                             is_error=False),
        "validate assistant/structured": lambda: core.validators.problems("execute_code", ASSISTANT_STRUCTURED, asst_value, is_error=False),
    }
    for name, value in (("validate programmatic/structured", prog_value), ("validate assistant/structured", asst_value)):
        notes[name] = {"kind": "validation", "description": "precompiled jsonschema-rs validator, via OutputValidators.problems",
                       "value_json_bytes": len(json.dumps(value, separators=(",", ":")).encode())}
    cases.update(validation)

    samples: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():
        time_calls(fn, 0, warmup)
    for _ in range(rounds):
        for name, fn in cases.items():
            samples[name].extend(time_calls(fn, per_round, warmup // 10))

    results = []
    for name in cases:
        summary = summarize(samples[name])
        entry = {"name": name, **notes[name], "us": summary}
        if notes[name]["kind"] == "core":
            entry["budget_us"] = BUDGET_US
            entry["within_budget"] = summary["median"] < BUDGET_US and summary["p99"] < BUDGET_US
        results.append(entry)

    return {
        "budget_us": BUDGET_US,
        "iterations_per_case": per_round * rounds,
        "warmup": warmup,
        "timer_overhead_us": timer_overhead(),
        "typical_result": {
            "outputs": len(core.execution.outputs),
            "output_text_bytes": output_text_bytes(core.execution),
        },
        "cases": results,
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [
        (f"Core per call ({report['iterations_per_case']} calls per case, result text "
         f"{report['typical_result']['output_text_bytes']} B, timer overhead {report['timer_overhead_us']:.2f} us; "
         f"budget {report['budget_us']:.0f} us)"),
        f"  {'case':<58} {'median us':>10} {'p99 us':>9} {'wire B':>7}  budget",
    ]
    for case in report["cases"]:
        size = case.get("result_json_bytes") or case.get("value_json_bytes") or ""
        verdict = ""
        if "within_budget" in case:
            verdict = "ok" if case["within_budget"] else "OVER"
        lines.append(f"  {case['name']:<58} {case['us']['median']:>10.2f} {case['us']['p99']:>9.2f} {size!s:>7}  {verdict}")
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--iterations", type=int, default=20_000, help="timed calls per case (default 20000)")
    args = parser.parse_args()
    report = run(iterations=args.iterations)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
