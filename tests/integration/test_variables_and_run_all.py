"""list_variables, inspect_variable and execute_notebook on real kernels (issue 21): every declared variant
requested and checked against its schema; the kernel describes itself without a trace (no new name, no
history, no execution count); a kernel that is not Python is refused; a notebook runs whole or in a range,
stopping at an error or not, with a progress notification per cell; live, each output reaches the shared
document as it comes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest

from mcp_variants.client.stdio import envelope
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.checked import OUTPUTS_VERSION, UI_EXTENSIONS, CheckedClient, text_of
from support.person import Person, output_texts
from support.processes import Reaper
from support.servers import serve_stdio

from .conftest import code, markdown, read_valid, write_notebook

AC, AS, PS, US, UC, UI_S = (
    "assistant/content", "assistant/structured", "programmatic/structured", "user/structured", "user/content",
    "io.modelcontextprotocol/ui/structured",
)

pytestmark = pytest.mark.timeout(240)

SETUP = ("n = 42\nwords = ['a', 'b', 'c']\nconfig = {'depth': 3, 'name': 'x'}\nlong = list(range(100_000))\n"
         "import numpy as np\nmatrix = np.arange(12, dtype='int32').reshape(3, 4)\ndef helper():\n    return 1\n")


def names_and_history(client: CheckedClient, notebook: str) -> tuple[set[str], int, int]:
    """The notebook kernel's global names, len(In) and execution count, asked the way a person would (a cell run)."""
    out = client.call("insert_execute_code_cell", {"notebook": notebook, "source": "print(sorted(globals())); print(len(In))"},
                      [{"audience": "programmatic", "format": "structured"}])
    assert not out.is_error, out.result
    names, length = "".join(o["text"] for o in out[PS]["outputs"]).strip().split("\n")
    return set(json.loads(names.replace("'", '"'))), int(length), out[PS]["executionCount"]


@pytest.fixture
def notebook(root: Path, request: pytest.FixtureRequest) -> str:
    name = f"vars-{request.node.name[:40]}.ipynb".replace("[", "-").replace("]", "")
    write_notebook(root / name, [code(SETUP)])
    return name


def test_list_variables_of_the_notebooks_kernel(stateless: CheckedClient, notebook: str) -> None:
    assert not stateless.call("execute_cell", {"notebook": notebook, "cell_index": 0}).is_error
    out = stateless.call("list_variables", {"notebook": notebook})
    assert not out.is_error, out.result
    by_name = {v["name"]: v for v in out[PS]["variables"]}
    assert set(by_name) == {"n", "words", "config", "long", "matrix"}, "modules, functions and IPython's own names are left out"
    assert by_name["n"] == {"name": "n", "type": "int", "shape": None, "length": None, "dtype": None, "repr": "42"}
    assert by_name["words"]["length"] == 3 and by_name["words"]["repr"] == "['a', 'b', 'c']"
    assert by_name["config"]["type"] == "dict" and by_name["config"]["length"] == 2
    assert by_name["long"]["length"] == 100_000 and len(by_name["long"]["repr"]) < 120, "a long list's repr is elided, never whole"
    assert by_name["matrix"]["type"] == "numpy.ndarray" and by_name["matrix"]["shape"] == [3, 4]
    assert by_name["matrix"]["dtype"] == "int32" and by_name["matrix"]["length"] == 3
    assert out[PS]["total"] == 5 and out[PS]["kernelId"]
    text = text_of(out[AC])
    assert "matrix\tnumpy.ndarray\t3x4\tint32" in text and "include_all" in text
    assert out[AS]["kind"] == "variables.list" and out[AS]["count"] == 5
    assert {r["name"] for r in out[US]["rows"]} == set(by_name)
    assert out[UI_S]["view"] == "table" and "numpy.ndarray" in out[UI_S]["facets"]["type"]

    everything = stateless.call("list_variables", {"notebook": notebook, "include_all": True},
                                [{"audience": "programmatic", "format": "structured"}])
    assert {"np", "helper"} <= {v["name"] for v in everything[PS]["variables"]}


def test_inspect_variable_in_detail(stateless: CheckedClient, notebook: str) -> None:
    stateless.call("execute_cell", {"notebook": notebook, "cell_index": 0})
    out = stateless.call("inspect_variable", {"notebook": notebook, "name": "matrix"})
    assert not out.is_error, out.result
    variable = out[PS]["variable"]
    assert variable["shape"] == [3, 4] and variable["dtype"] == "int32" and "array([[ 0,  1,  2,  3]" in variable["repr"]
    assert "dtype: int32" in text_of(out[AC]) and "shape/len: 3x4" in text_of(out[AC])
    assert out[AS]["kind"] == "variable.inspect" and out[UI_S]["view"] == "table"

    missing = stateless.call("inspect_variable", {"notebook": notebook, "name": "nope"})
    assert missing.is_error and missing[PS]["error"]["type"] == "not-found" and "list_variables" in text_of(missing[AC])
    bad = stateless.call("inspect_variable", {"notebook": notebook, "name": "a.b"}, [{"audience": "assistant", "format": "content"}])
    assert bad.is_error and "not a variable name" in text_of(bad[AC])


def pandas_python() -> str | None:
    """An interpreter with pandas and ipykernel: MCP_VARIANTS_TEST_PANDAS_PYTHON's, else the server's own."""
    for python in (os.environ.get("MCP_VARIANTS_TEST_PANDAS_PYTHON"), sys.executable):
        if python and subprocess.run([python, "-c", "import pandas, ipykernel"], capture_output=True).returncode == 0:
            return python
    return None


def server_with_kernelspec(tmp_path: Path, reaper: Reaper, name: str, language: str, python: str,
                           cells: list[Any]) -> CheckedClient:
    """Our server whose JUPYTER_PATH has kernelspec `name` (an ipykernel of `python` that says it is `language`),
    on a root with `name`.ipynb, whose metadata picks that kernelspec."""
    spec = tmp_path / "jupyter" / "kernels" / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": name, "language": language}))
    root = tmp_path / "root"
    root.mkdir()
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": name, "display_name": name, "language": language}})
    notebook.cells = cells
    (root / f"{name}.ipynb").write_text(nbformat.writes(notebook))
    connection = serve_stdio(root, env={**os.environ, "JUPYTER_PATH": str(tmp_path / "jupyter")})
    reaper.watch(connection.process.pid)
    return CheckedClient(connection, stateless=True)


def test_a_dataframe_has_its_columns_dtypes_and_head(tmp_path: Path, reaper: Reaper) -> None:
    python = pandas_python()
    if python is None:
        pytest.skip("no interpreter with pandas and ipykernel (the project's venv has no pandas; set "
                    "MCP_VARIANTS_TEST_PANDAS_PYTHON to one): a DataFrame's columns, dtypes and head are untested here")
    client = server_with_kernelspec(tmp_path, reaper, "pandas-python", "python", python, [nbformat.v4.new_code_cell(
        "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3, 4, 5, 6], 'b': list('uvwxyz')})\nseries = df['a']")])
    try:
        assert not client.call("execute_cell", {"notebook": "pandas-python.ipynb", "cell_index": 0}).is_error
        listed = client.call("list_variables", {"notebook": "pandas-python.ipynb"})
        by_name = {v["name"]: v for v in listed[PS]["variables"]}
        df = by_name["df"]
        frame_type = df["type"]  # pandas 3 names its classes' module pandas, pandas 2 pandas.core.frame
        assert frame_type in ("pandas.DataFrame", "pandas.core.frame.DataFrame") and df["shape"] == [6, 2] and df["length"] == 6
        assert [c["name"] for c in df["columns"]] == ["a", "b"] and df["columns"][0]["dtype"] == "int64"
        assert df["columns"][1]["dtype"] in ("object", "str", "string"), "pandas 2 says object, pandas 3 str"
        assert by_name["series"]["dtype"] == "int64" and by_name["series"]["shape"] == [6] and "columns" not in by_name["series"]
        assert "columns: a (int64), b (" in text_of(listed[AC])
        out = client.call("inspect_variable", {"notebook": "pandas-python.ipynb", "name": "df"})
        head = out[PS]["variable"]["head"]
        assert head["index"] == ["0", "1", "2", "3", "4"] and head["rows"][0] == ["1", "'u'"]
        assert out[UI_S]["rows"][0] == {"index": "0", "c0": "1", "c1": "'u'"} and out[US]["columns"][1] == {"key": "c0", "label": "a"}
        text = text_of(out[AC])
        assert f"df: {frame_type}" in text and "shape/len: 6x2" in text and "First 5 rows:" in text
    finally:
        client.stdio.close()


def test_looking_leaves_no_trace_in_the_kernel(stateless: CheckedClient, notebook: str) -> None:
    """No new name in the user's namespace, nothing in In (history), no execution count, no `_`."""
    stateless.call("execute_cell", {"notebook": notebook, "cell_index": 0})
    names, history, count = names_and_history(stateless, notebook)
    for _ in range(2):
        assert not stateless.call("list_variables", {"notebook": notebook, "include_all": True}).is_error
        assert not stateless.call("inspect_variable", {"notebook": notebook, "name": "matrix"}).is_error
    after, history_after, count_after = names_and_history(stateless, notebook)
    new = after - names
    assert all(re.fullmatch(r"_i\d+", name) for name in new), f"only the asking cell's own _iN: {new}"
    assert (history_after, count_after) == (history + 1, count + 1), "only the asking cell was counted and kept in In"


def test_the_default_kernel_is_where_execute_code_runs(stateless: CheckedClient) -> None:
    ran = stateless.call("execute_code", {"code": "only_here = {'k': 1}"}, [{"audience": "programmatic", "format": "structured"}])
    out = stateless.call("list_variables", {}, [{"audience": "programmatic", "format": "structured"}])
    assert out[PS]["kernelId"] == ran[PS]["kernelId"] and "only_here" in {v["name"] for v in out[PS]["variables"]}
    by_id = stateless.call("inspect_variable", {"name": "only_here", "kernel_id": ran[PS]["kernelId"]},
                           [{"audience": "programmatic", "format": "structured"}])
    assert by_id[PS]["variable"]["repr"] == "{'k': 1}"


def test_a_kernel_that_is_not_python_is_refused(tmp_path: Path, reaper: Reaper) -> None:
    """A kernelspec whose language is bash (its process is ipykernel, so only the language check can refuse it:
    were the snippet run, it would answer) gets a clear error, and nothing runs in it."""
    client = server_with_kernelspec(tmp_path, reaper, "bash", "bash", sys.executable, [nbformat.v4.new_code_cell("x = 1")])
    try:
        ran = client.call("execute_notebook", {"notebook": "bash.ipynb"}, [{"audience": "programmatic", "format": "structured"}])
        assert not ran.is_error and ran[PS]["cells"][0]["executionCount"] == 1
        for tool, arguments in (("list_variables", {}), ("inspect_variable", {"name": "x"})):
            out = client.call(tool, {"notebook": "bash.ipynb", **arguments})
            assert out.is_error and out[PS]["error"]["type"] == "invalid-arguments"
            assert "bash kernel" in text_of(out[AC]) and "Python kernels only" in text_of(out[AC])
        again = client.call("execute_code", {"code": "1", "kernel_id": ran[PS]["cells"][0]["kernelId"]},
                            [{"audience": "programmatic", "format": "structured"}])
        assert again[PS]["executionCount"] == 2, "nothing ran in it meanwhile"
    finally:
        client.stdio.close()


# ---- execute_notebook --------------------------------------------------------------------------------


def run_all_cells() -> list[dict[str, Any]]:
    return [code("a = 1\nprint('first')"), markdown("# between"), code("b = a + 1\nprint(b)"), code("1 / 0"), code("c = b * 10\nprint(c)")]


def test_execute_notebook_stops_at_the_first_error(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "stop.ipynb", run_all_cells())
    out = stateless.call("execute_notebook", {"notebook": "stop.ipynb"})
    assert out.is_error and out[PS]["error"]["type"] == "execution-error" and out[PS]["error"]["ename"] == "ZeroDivisionError"
    statuses = [(c["index"], c["status"]) for c in out[PS]["cells"]]
    assert statuses == [(0, "ok"), (2, "ok"), (3, "error"), (4, "not-run")], "markdown passed over, the rest not run"
    assert out[PS]["ran"] == 3 and out[PS]["failed"] == 1
    assert [c["executionCount"] for c in out[PS]["cells"]] == [1, 2, 3, None]
    text = text_of(out[AC])
    assert "Ran 3 of 4 code cells" in text and "Cell 3 failed: ZeroDivisionError" in text and "not run (4)" in text
    assert "first" in text and "[4]" not in text
    assert [c["status"] for c in out[AS]["cells"]] == ["ok", "ok", "error", "not-run"]
    cells = read_valid(root / "stop.ipynb").cells
    assert cells[0].outputs[0]["text"] == "first\n" and cells[2].outputs[0]["text"] == "2\n"
    assert cells[3].outputs[0]["ename"] == "ZeroDivisionError" and cells[4].outputs == [] and cells[4].execution_count is None
    assert "c" not in {v["name"] for v in stateless.call("list_variables", {"notebook": "stop.ipynb"})[PS]["variables"]}


def test_execute_notebook_goes_on_past_errors_when_asked(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "go-on.ipynb", run_all_cells())
    out = stateless.call("execute_notebook", {"notebook": "go-on.ipynb", "stop_on_error": False})
    assert out.is_error, "a cell failed: the result says so"
    assert [c["status"] for c in out[PS]["cells"]] == ["ok", "ok", "error", "ok"]
    assert "20" in "".join(o.get("text", "") for o in out[PS]["cells"][3]["outputs"])
    assert read_valid(root / "go-on.ipynb").cells[4].outputs[0]["text"] == "20\n"


def test_execute_notebook_runs_a_range_and_every_variant_on_success(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "range.ipynb", run_all_cells())
    out = stateless.call("execute_notebook", {"notebook": "range.ipynb", "start_index": 0, "end_index": 3})
    assert not out.is_error, out.result
    assert [(c["index"], c["status"]) for c in out[PS]["cells"]] == [(0, "ok"), (2, "ok")]
    assert (out[PS]["start"], out[PS]["end"]) == (0, 3)
    assert "Ran 2 of 2 code cells of range.ipynb (cells 0 to 2): 2 ok, 0 failed." in text_of(out[AC])
    assert out[AS]["cells"][1]["outputs"] == ["2\n"]
    assert "In [2]: (cell 2)\nb = a + 1" in text_of(out[UC])
    assert out[UI_S]["view"] == "notebook" and [c["index"] for c in out[UI_S]["cells"]] == [0, 2]
    later = stateless.call("execute_notebook", {"notebook": "range.ipynb", "start_index": 4})
    assert [c["index"] for c in later[PS]["cells"]] == [4] and "20" in text_of(later[AC]), "the state of the first run is there"
    write_notebook(root / "aligned.ipynb", [code("print('\\n   x  y\\n0  1  2\\n')")])
    aligned = text_of(stateless.call("execute_notebook", {"notebook": "aligned.ipynb"})[AC])
    assert aligned.endswith(":\n   x  y\n0  1  2"), f"a table's header keeps its alignment: {aligned!r}"

    for arguments, hint in (({"start_index": 9}, "out of range"), ({"start_index": 1, "end_index": 2}, "No code cells"),
                            ({"start_index": 3, "end_index": 1}, "before start_index")):
        bad = stateless.call("execute_notebook", {"notebook": "range.ipynb", **arguments}, [{"audience": "assistant", "format": "content"}])
        assert bad.is_error and hint in text_of(bad[AC]), (arguments, bad.result)


def test_execute_notebook_says_a_cells_images(stateless: CheckedClient, root: Path) -> None:
    """The model's summary names a plot (never inlines it); people get the image itself."""
    plot = ("import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]); plt.show()")
    write_notebook(root / "plot.ipynb", [code(plot)])
    out = stateless.call("execute_notebook", {"notebook": "plot.ipynb"})
    assert not out.is_error, out.result
    assert "[1 image: read_cell shows" in text_of(out[AC]) and not [b for b in out[AC] if b["type"] == "image"]
    assert [b for b in out[UC] if b["type"] == "image"] and out[AS]["cells"][0]["outputs"][0]["type"] == "image"


def test_execute_notebook_reports_progress_per_cell(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "progress.ipynb", [code("import time\nprint('one', flush=True)\ntime.sleep(1.2)"), code("print('two')")])
    token = "run-all-progress"
    connection = stateless.stdio
    connection.notifications.clear()
    response = stateless.request("tools/call", {
        "name": "execute_notebook", "arguments": {"notebook": "progress.ipynb"},
        "requestedOutputs": [{"audience": "assistant", "format": "content"}],
        "_meta": {**envelope(OUTPUTS_VERSION, UI_EXTENSIONS), "progressToken": token}})
    assert not response["result"].get("isError"), response
    progress = [n["params"] for n in connection.notifications
                if n.get("method") == "notifications/progress" and n["params"]["progressToken"] == token]
    messages = [p.get("message", "") for p in progress]
    starts = [m for m in messages if m.endswith(": running")]
    assert len(starts) == 2 and starts[0].startswith("cell 0 (1 of 2") and starts[1].startswith("cell 1 (2 of 2"), messages
    assert any("one" in m for m in messages), "what a cell prints is streamed, as execute_cell does"
    values = [p["progress"] for p in progress]
    assert values == sorted(values) and len(set(values)) == len(values), "progress keeps increasing across cells"


def test_execute_notebook_can_be_a_task(legacy: CheckedClient, root: Path) -> None:
    """As execute_cell: tools/list says taskSupport optional at 2025-11-25, and a call with `task` runs as one."""
    assert legacy.tools["execute_notebook"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in legacy.tools["list_variables"]
    write_notebook(root / "task.ipynb", [code("print(6 * 7)")])
    created = legacy.stdio.request("tools/call", {"name": "execute_notebook", "arguments": {"notebook": "task.ipynb"},
                                                       "task": {"ttl": 60000}})["result"]
    task_id = created["task"]["taskId"]
    result = legacy.stdio.request("tasks/result", {"taskId": task_id})["result"]
    assert "42" in text_of(result["content"]) and result["structuredContent"]["kind"] == "notebook.execute", result


# ---- live: a real JupyterLab with real-time collaboration ---------------------------------------------


def test_live_execute_notebook_streams_into_the_shared_document(jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    nb = "run-all-live.ipynb"
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell("shared = [1, 2]\nprint('first', flush=True)"),
                      nbformat.v4.new_code_cell("import time\nprint('before sleep', flush=True)\ntime.sleep(3)\nprint('after')")]
    (jupyterlab.root / nb).write_text(nbformat.writes(notebook))
    live = CheckedClient.serve(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                               stateless=True, reaper=reaper)
    person = Person(jupyterlab, nb)
    try:
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(live.call, "execute_notebook", {"notebook": nb})
            seen = person.wait_for(lambda n: "before sleep" in output_texts(n["cells"][1]), timeout=60)
            assert not running.done(), "the second cell's first output reached the document while it ran"
            assert "first" in output_texts(seen["cells"][0])
            out = running.result(timeout=120)
        assert not out.is_error, out.result
        assert [c["status"] for c in out[PS]["cells"]] == ["ok", "ok"]
        person.wait_for(lambda n: "after" in output_texts(n["cells"][1]))
        variables = live.call("list_variables", {"notebook": nb})
        assert variables[PS]["kernelId"] == out[PS]["cells"][0]["kernelId"], "the notebook's session kernel"
        assert {v["name"] for v in variables[PS]["variables"]} == {"shared"}
    finally:
        person.close()
        live.close()
