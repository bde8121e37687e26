"""Code mode in Python: smolagents' CodeAgent runs a fixed program against `mcp-variants serve`, typed by bindings
generated from the tools' `programmatic/structured` schemas.

The model is scripted (smolagents' `Model`, answering the program of programs/notebook_task.py as a model would
write it): no network, no LLM. Before the run, mypy checks the program against the bindings the generator's command
line wrote from the live server, and catches the same program with one field misread. The run then lists notebooks
and files (paging through nextCursor), runs cells, reads a PNG's bytes and branches on error.type; what the program
got is what a 2026-12-01 client gets for programmatic/structured, and every call it made asked for just that. The
same program runs again on a live notebook in a remote JupyterLab (`serve --jupyter-url`), and an older protocol
version gives the same adapter the legacy structuredContent.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from smolagents import ChatMessage, CodeAgent, MessageRole, Model

from mcp_variants.client import ClientSession, RecordingTransport, StdioTransport
from mcp_variants.client.codemode import CodeModeTools, ToolCallError
from mcp_variants.client.smolagents_tools import tool_collection
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.protocol.types import PROGRAMMATIC_STRUCTURED
from support.jupyter import kernel_ids
from support.servers import serve_command, serve_stdio

PROGRAM = Path(__file__).with_name("programs") / "notebook_task.py"
# A PNG drawn in the kernel, shown as display_data: its bytes reach the program base64-encoded in the mime bundle.
PLOT = ('from PIL import Image as I; import io; from IPython.display import Image, display\n'
        'b = io.BytesIO(); I.new("RGB", (4, 3), "red").save(b, "PNG"); display(Image(b.getvalue()))')
WANTED = [{"audience": "programmatic", "format": "structured"}]


class ScriptedModel(Model):  # type: ignore[misc]
    """Answers each step with the next fixed program, in a code block as CodeAgent parses it; keeps what it was shown."""

    def __init__(self, programs: list[str]) -> None:
        super().__init__(model_id="scripted")
        self.programs = list(programs)
        self.shown: list[Any] = []

    def generate(self, messages: list[Any], stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        self.shown.append(messages)
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: the task, in code.\n<code>\n{self.programs.pop(0)}\n</code>")


class Recorded(CodeModeTools):
    """CodeModeTools that keeps every (tool, arguments, value) the program received, and after each listing what a
    2026-12-01 client's own call for programmatic/structured gets at that moment (`twins`)."""

    def __init__(self, session: ClientSession) -> None:
        super().__init__(session)
        self.received: list[tuple[str, dict[str, Any], Any]] = []
        self.twins: list[tuple[Any, Any]] = []

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        value = super().call(tool, arguments)
        self.received.append((tool, dict(arguments or {}), value))
        if tool in ("list_files", "list_notebooks"):
            twin = self.session.call(tool, arguments, [PROGRAMMATIC_STRUCTURED]).outputs[0].value
            self.twins.append((_steady(value), _steady(twin)))
        return value


def _steady(value: Any) -> Any:
    """A listing without a kernel's execution state, which is live: it may change between two calls."""
    if isinstance(value, dict) and isinstance(value.get("notebooks"), list):
        return {**value, "notebooks": [{k: v for k, v in n.items() if k != "kernelState"} for n in value["notebooks"]]}
    return value


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("codemode-root")
    (folder / "data").mkdir()
    for i in range(5):
        (folder / "data" / f"part{i}.csv").write_text(f"x\n{i}\n")
    return folder


@pytest.fixture(scope="module")
def served(root: Path) -> Iterator[tuple[ClientSession, RecordingTransport]]:
    transport = RecordingTransport(StdioTransport(serve_stdio(root)))
    with ClientSession(transport, "2026-12-01", timeout=120) as session:
        yield session, transport


def mypy_errors(folder: Path, *programs: str) -> list[str]:
    """mypy --strict on each program, beside the bindings (tools.py) and the runtime's own names."""
    names = []
    for i, program in enumerate(programs):
        runtime = "from tools import *\n\nPLOT = ''\n\n\ndef final_answer(answer: object) -> None: ...\n\n\n"
        (folder / f"program{i}.py").write_text(runtime + program)
        names.append(f"program{i}.py")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *names],
                          cwd=folder, capture_output=True, text=True, timeout=280)
    return [line for line in done.stdout.splitlines() if ": error:" in line]


def run_task(session: ClientSession, transport: RecordingTransport) -> tuple[dict[str, Any], Recorded, list[dict[str, Any]]]:
    """The program through a CodeAgent on `session`: (its answer, the calls it made, the tools/call requests sent),
    after checking that what it got is what a 2026-12-01 client gets."""
    tools = Recorded(session)
    model = ScriptedModel([f"PLOT = {PLOT!r}\n{PROGRAM.read_text()}"])
    agent = CodeAgent(tools=tool_collection(tools).tools, model=model, additional_authorized_imports=["base64"], max_steps=2)
    mark = len(transport.sent)
    answer = agent.run("Summarise the notebooks, files, a sum and a plot.", additional_args={"ToolCallError": ToolCallError})
    # What the model was shown of the tools is the records' schema, not the model's own shape.
    system = json.dumps([str(m) for m in model.shown[0]])
    assert "nextCursor" in system and "kernelState" in system

    # Every call the program made asked for programmatic/structured, and nothing else.
    calls = [json.loads(body) for _, body in transport.sent[mark:]]
    calls = [c for c in calls if c.get("method") == "tools/call"]
    assert len(calls) == tools.calls + len(tools.twins) and tools.calls == len(tools.received) + 1  # the last raised
    assert all(c["params"]["requestedOutputs"] == WANTED for c in calls)

    # What it got is what a 2026-12-01 client gets: each listing asked again at once, the cells as the notebook keeps them.
    assert tools.twins and all(got == twin for got, twin in tools.twins)
    plot = next(value for tool, args, value in tools.received if args.get("source") == PLOT)
    cell = session.call("read_cell", {"notebook": "analysis.ipynb", "cell_index": plot["cell"]["cellIndex"]},
                        [PROGRAMMATIC_STRUCTURED]).outputs[0].value
    png = [o["data"]["image/png"] for o in plot["outputs"] if o["output_type"] == "display_data"]
    stored = [o["data"]["image/png"] for o in cell["cell"]["outputs"] if o["output_type"] == "display_data"]
    assert png == stored and base64.b64decode(png[0]).startswith(b"\x89PNG")
    return answer, tools, calls


def check_answer(answer: dict[str, Any], tools: Recorded) -> None:
    opened = tools.received[0]
    assert opened[0] == "use_notebook" and answer["notebooks"] == ["analysis.ipynb"]
    assert answer["files"] == [f"data/part{i}.csv" for i in range(5)]  # three pages of two
    assert answer["printed"] == "45\n" and answer["cell"] == opened[2]["cellCount"]  # the first cell it added, at the end
    assert answer["png"] == "89504e470d0a1a0a"  # the PNG signature: real bytes, decoded from the mime bundle
    assert answer["failure"] == "execution-error: ZeroDivisionError"


def test_a_codeagent_program_is_type_checked_then_gets_the_programmatic_records(
    root: Path, served: tuple[ClientSession, RecordingTransport], tmp_path: Path
) -> None:
    # The bindings, as a person makes them: the generator's command line on the server's command.
    generate = [sys.executable, "-m", "mcp_variants.client.stubs", "-o", str(tmp_path / "tools.py"), "--", *serve_command(root)]
    done = subprocess.run(generate, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    program = PROGRAM.read_text()
    misread = program.replace('page["nextCursor"]', 'page["next_cursor"]')
    assert misread != program
    errors = mypy_errors(tmp_path, program, misread)
    assert [e for e in errors if e.startswith("program1.py")] and all('"next_cursor"' in e for e in errors), errors
    assert not [e for e in errors if e.startswith("program0.py")], errors

    answer, tools, calls = run_task(*served)
    check_answer(answer, tools)
    assert len(calls) == 8 + 4 and len(tools.twins) == 4  # use_notebook, list_notebooks, three pages, three cells


def test_the_same_program_on_a_live_notebook_in_a_remote_jupyterlab(jupyterlab: JupyterServerProcess, tmp_path: Path) -> None:
    """`serve --jupyter-url`: the notebook is a live one in JupyterLab's real-time collaboration, its cells run in
    JupyterLab's kernel; the program and what it gets are the same."""
    data = jupyterlab.root / "data"
    data.mkdir(exist_ok=True)
    for i in range(5):
        (data / f"part{i}.csv").write_text(f"x\n{i}\n")
    transport = RecordingTransport(StdioTransport(serve_stdio(tmp_path, "--jupyter-url", jupyterlab.url,
                                                              "--jupyter-token", jupyterlab.token)))
    with ClientSession(transport, "2026-12-01", timeout=120) as session:
        answer, tools, _ = run_task(session, transport)
        shared = session.call("use_notebook", {"notebook": "analysis.ipynb"}, [PROGRAMMATIC_STRUCTURED]).outputs[0].value
        assert shared["kernelId"] in kernel_ids(jupyterlab), (shared, kernel_ids(jupyterlab))  # JupyterLab's kernel ran the cells
    check_answer(answer, tools)


def test_a_tool_without_a_variant_for_code_answers_content_and_an_error_carries_it(
    served: tuple[ClientSession, RecordingTransport],
) -> None:
    session, transport = served
    tools = CodeModeTools(session)
    plain = next(t.name for t in session.list_tools() if not t.declares(PROGRAMMATIC_STRUCTURED))
    assert tools.selection(plain).fallback
    mark = len(transport.sent)
    with pytest.raises(ToolCallError) as failed:
        tools.function(plain)(no_such_argument=1)
    sent = json.loads(transport.sent[mark][1])
    assert "requestedOutputs" not in sent["params"]  # the fallback is asked for by asking for nothing
    assert failed.value.error["type"] == "content" and "no_such_argument" in failed.value.error["message"]
    assert failed.value.output[0]["type"] == "text"  # the assistant/content blocks, as they came


def test_an_older_version_gives_the_same_adapter_the_legacy_structured_content(root: Path) -> None:
    """Before 2026-12-01 nothing can be selected: the adapter returns the legacy structuredContent, which is the
    model's shape (the tool's outputSchema), and the bindings say so."""
    with ClientSession(StdioTransport(serve_stdio(root)), "2025-11-25", timeout=120) as session:
        tools = CodeModeTools(session)
        assert tools.selection("list_files").fallback
        listing = tools.call("list_files", {"limit": 2})
        assert listing == session.call("list_files", {"limit": 2}).structured_content
        assert "files" not in listing  # not the records: the legacy shape
        stubs = tools.stubs()
        assert "this server has no outputVariants" in stubs and "def list_files(" in stubs
