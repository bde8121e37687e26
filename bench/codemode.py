"""What reaches the model in code mode against tool calling, for the same task, in tokens; round trips per task.

The task is the fixed program of tests/client/programs/notebook_task.py (open a notebook, list notebooks, list the
files page by page, run a sum, draw a PNG and read its bytes, hit a ZeroDivisionError and say its error.type). Two
contestants, each on a fresh `mcp-variants serve` (stdio) over the same folder:

  code mode       smolagents' CodeAgent (scripted model, mcp_variants.client.smolagents_tools): the model writes the
                  program once and reads its printed answer (the observation smolagents gives it back); the tools
                  answer programmatic/structured to the program, never to the model.
  tool calling    the same calls, with the arguments the program used, at 2026-12-01 without requestedOutputs
                  (the default selection, assistant/content): the model writes each call and reads each result.

Counted: tokens (bench.tokens, o200k_base, offline) of what the model writes and what it reads per task; images it
reads (count and decoded bytes, not tokens); model turns (one per call, and the answer, in tool calling; one in code
mode); tools/call round trips; and once per conversation, the tool definitions the model is given (the tools/list
entries in tool calling; in code mode smolagents' system prompt, which carries each tool's programmatic schema).
The facts of the answer (the files' names, the sum, the error's type) must be in what the model read.

Run alone: python -m bench.codemode [--record]; in the suite: python -m bench --only codemode
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp_variants.client import ClientSession, StdioConnection, StdioTransport
from mcp_variants.client.codemode import CodeModeTools, ToolCallError

from . import cli, tokens
from .context import Seen, compact, read_blocks
from .record import REPO, record_part

PROGRAM = REPO / "tests" / "client" / "programs" / "notebook_task.py"
PLOT = ('from PIL import Image as I; import io; from IPython.display import Image, display\n'
        'b = io.BytesIO(); I.new("RGB", (4, 3), "red").save(b, "PNG"); display(Image(b.getvalue()))')
TASK = "Open analysis.ipynb, list notebooks and files, sum range(10), draw a plot and read its bytes, try 1/0."


def folder(root: Path) -> Path:
    (root / "data").mkdir(parents=True)
    for i in range(5):
        (root / "data" / f"part{i}.csv").write_text(f"x\n{i}\n")
    return root


def session(root: Path) -> ClientSession:
    command = [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root)]
    return ClientSession(StdioTransport(StdioConnection(command)), "2026-12-01", timeout=300)


class _Recorded(CodeModeTools):
    """The calls the program made, with their arguments, in order (a failed one too)."""

    def __init__(self, opened: ClientSession) -> None:
        super().__init__(opened)
        self.made: list[tuple[str, dict[str, Any]]] = []

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        self.made.append((tool, dict(arguments or {})))
        return super().call(tool, arguments)


def code_mode(root: Path) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], list[str]]:
    """The program through a scripted CodeAgent: (its row, the calls it made, the texts to count)."""
    from smolagents import ChatMessage, CodeAgent, LogLevel, MessageRole, Model

    from mcp_variants.client.smolagents_tools import tool_collection

    # What a model writes: the program without the file's own comments (they are for the reader of the test).
    body = "\n".join(line for line in PROGRAM.read_text().splitlines() if not line.startswith("#")).strip()
    program = f"PLOT = {PLOT!r}\n{body}"

    class Scripted(Model):  # type: ignore[misc]  # smolagents has no type information
        def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                     tools_to_call_from: Any = None, **kwargs: Any) -> Any:
            return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: the task, in code.\n<code>\n{program}\n</code>")

    with session(root) as opened:
        tools = _Recorded(opened)
        agent = CodeAgent(tools=tool_collection(tools).tools, model=Scripted(model_id="scripted"),
                          additional_authorized_imports=["base64"], max_steps=2, verbosity_level=LogLevel.OFF)
        agent.run(TASK, additional_args={"ToolCallError": ToolCallError})
        steps = [step for step in agent.memory.steps if hasattr(step, "model_output")]
        written = "\n".join(str(step.model_output) for step in steps)
        read = "\n".join(str(step.observations or "") for step in steps)  # the answer, as final_answer printed it
        system = agent.memory.system_prompt.system_prompt
    row = {"name": "code mode", "model_turns": len(steps), "tool_round_trips": tools.calls, "images": 0, "image_bytes": 0,
           "missing_facts": missing(read)}
    return row, tools.made, [written, read, system]


def tool_calling(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[dict[str, Any], list[str]]:
    """The same calls with the default selection: the model writes each call and reads each assistant/content."""
    seen, written = Seen([], []), []
    with session(root) as opened:
        listing = [tool.raw for tool in opened.list_tools()]
        for tool, arguments in calls:
            written.append(compact({"name": tool, "arguments": arguments}))
            read_blocks(opened.call(tool, arguments).outputs[0].value, seen)
    read = "\n".join(seen.texts)
    row = {"name": "tool calling", "model_turns": len(calls) + 1, "tool_round_trips": len(calls), "images": len(seen.image_bytes),
           "image_bytes": sum(seen.image_bytes), "missing_facts": missing(read)}
    return row, ["\n".join(written), read, compact(listing)]


def missing(read: str) -> list[str]:
    facts = ["analysis.ipynb", *(f"part{i}.csv" for i in range(5)), "45", "ZeroDivisionError"]
    return [fact for fact in facts if fact not in read]


def run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mcpv-bench-codemode-") as tmp:
        code_row, calls, code_texts = code_mode(folder(Path(tmp) / "code"))
        tool_row, tool_texts = tool_calling(folder(Path(tmp) / "tools"), calls)
    counts = tokens.count([*code_texts, *tool_texts])
    for row, (written, read, definitions) in ((code_row, counts[:3]), (tool_row, counts[3:])):
        row.update(written_tokens=written, read_tokens=read, task_tokens=written + read, definition_tokens=definitions,
                   errors=len(row["missing_facts"]))  # what `python -m bench --smoke` fails on
    return {"task": TASK, "calls": [tool for tool, _ in calls],
            "tokenizer": {"package": tokens.PACKAGE, "version": tokens.version(), "encoding": tokens.ENCODING},
            "contestants": [code_row, tool_row],
            "ratio": round(code_row["task_tokens"] / tool_row["task_tokens"], 3)}


def format_report(report: dict[str, Any]) -> str:
    tokenizer = report["tokenizer"]
    lines = [f"Code mode against tool calling, one task ({len(report['calls'])} tool calls): {tokenizer['package']} "
             f"{tokenizer['version']} {tokenizer['encoding']} tokens (x: a fact missing from what the model read)"]
    columns = [("", "<13"), ("writes", ">7,"), ("reads", ">7,"), ("per task", ">9,"), ("images", ">7"), ("model turns", ">12"),
               ("tool calls", ">11"), ("tool defs", ">10,"), ("", "<2")]
    lines += cli.table(columns, [(r["name"], r["written_tokens"], r["read_tokens"], r["task_tokens"], r["images"], r["model_turns"],
                                  r["tool_round_trips"], r["definition_tokens"], "x" if r["missing_facts"] else "")
                                 for r in report["contestants"]])
    lines.append(f"  code mode / tool calling, per task: {report['ratio']}x the tokens")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__, prog="python -m bench.codemode")
    parser.add_argument("--record", action="store_true", help="write bench/results/<date>-<sha>-codemode.json and codemode-latest.json")
    args = parser.parse_args(argv)
    report = run()
    cli.show(report, format_report, args.json)
    if args.record:
        print(f"recorded {record_part('codemode', report).relative_to(REPO)}")


if __name__ == "__main__":
    main()
