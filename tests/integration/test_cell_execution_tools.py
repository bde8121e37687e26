"""execute_cell, insert_execute_code_cell and restart_notebook on real kernels: every declared
variant requested and checked against its schema, outputs written back to the right cell,
the legacy shape at 2025-11-25, and bad input that changes nothing (issue 3)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from support.checked import CheckedClient, text_of

from .conftest import CELL_META, code, markdown, read_valid, write_notebook

AC, AS, PS, UC, UI_S = (
    "assistant/content", "assistant/structured", "programmatic/structured", "user/content",
    "io.modelcontextprotocol/ui/structured",
)
PLOT = (
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
    "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]); plt.show()"
)

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def notebook(root: Path, request: pytest.FixtureRequest) -> str:
    name = f"cells-{request.node.name[:40]}.ipynb".replace("[", "-").replace("]", "")
    write_notebook(root / name, [code("x = 21\nprint('set')"), markdown("# notes"), code("x * 2"), code(PLOT)])
    return name


def test_execute_cell_every_variant_and_writes_outputs_back(stateless: CheckedClient, root: Path, notebook: str) -> None:
    first = stateless.call("execute_cell", {"notebook": notebook, "cell_index": 0})
    assert not first.is_error, first.result
    assert "set" in text_of(first[AC]) and "set" in text_of(first[UC])
    assert first[AS]["kind"] == "cell.execute" and first[AS]["count"] == 1
    record = first[PS]
    cell_id = read_valid(root / notebook).cells[0]["id"]
    assert record["cell"] == {"notebook": notebook, "cellId": cell_id, "cellIndex": 0}
    assert first.meta[CELL_META] == cell_id
    assert first[UI_S]["view"] == "execution" and first[UI_S]["cell"]["cellId"] == cell_id

    second = stateless.call("execute_cell", {"notebook": notebook, "cell_id": read_valid(root / notebook).cells[2]["id"]})
    assert "42" in text_of(second[AC]), "state persists in the notebook's kernel"
    on_disk = read_valid(root / notebook).cells
    assert on_disk[0]["outputs"][0]["text"] == "set\n" and on_disk[0]["execution_count"] == record["executionCount"]
    assert on_disk[2]["outputs"][0]["data"]["text/plain"] == "42"


def test_a_plot_is_an_image_for_people_and_a_reference_for_the_model(stateless: CheckedClient, notebook: str) -> None:
    out = stateless.call("execute_cell", {"notebook": notebook, "cell_index": 3})
    images = [b for b in out[UC] if b["type"] == "image"]
    assert images and base64.b64decode(images[0]["data"]).startswith(b"\x89PNG")
    assert out[AS]["images"] == 1
    assert "data" not in json.dumps(out[AS]), "assistant/structured references images, never inlines them"


def test_insert_execute_code_cell_every_variant(stateless: CheckedClient, root: Path, notebook: str) -> None:
    out = stateless.call("insert_execute_code_cell", {"notebook": notebook, "cell_index": 1, "source": "print(6 * 7)"})
    assert not out.is_error and "42" in text_of(out[AC])
    assert out[AS]["kind"] == "cell.insert_execute"
    cells = read_valid(root / notebook).cells
    assert cells[1]["source"] == "print(6 * 7)" and cells[1]["outputs"][0]["text"] == "42\n"
    assert out[PS]["cell"]["cellIndex"] == 1 and out.meta[CELL_META] == cells[1]["id"]


def test_a_raising_cell_is_an_error_in_every_audience(stateless: CheckedClient, root: Path, notebook: str) -> None:
    out = stateless.call("insert_execute_code_cell", {"notebook": notebook, "source": "1 / 0"})
    assert out.is_error
    assert out[AS]["error"]["ename"] == "ZeroDivisionError" and out[PS]["error"]["type"] == "execution-error"
    assert "ZeroDivisionError" in text_of(out[AC])
    assert read_valid(root / notebook).cells[-1]["outputs"][0]["ename"] == "ZeroDivisionError"


def test_restart_notebook_forgets_state(stateless: CheckedClient, notebook: str) -> None:
    stateless.call("execute_cell", {"notebook": notebook, "cell_index": 0})
    out = stateless.call("restart_notebook", {"notebook": notebook})
    assert not out.is_error and out[AS]["kind"] == "notebook.restart" and out[PS]["restarted"] is True
    after = stateless.call("execute_cell", {"notebook": notebook, "cell_index": 2})
    assert after.is_error and after[PS]["error"]["ename"] == "NameError"


@pytest.mark.parametrize(
    ("tool", "arguments", "hint"),
    [
        ("execute_cell", {"cell_index": 1}, "only code cells run"),
        ("execute_cell", {"cell_index": 99}, "out of range"),
        ("execute_cell", {"cell_id": "nope"}, "read_notebook lists the cell ids"),
        ("insert_execute_code_cell", {"cell_index": 99, "source": "1"}, "out of range"),
        ("execute_cell", {"cell_index": 0, "notebook": "../outside.ipynb"}, "inside the root"),
    ],
)
def test_bad_input_is_a_helpful_error_and_changes_nothing(
    stateless: CheckedClient, root: Path, notebook: str, tool: str, arguments: dict[str, object], hint: str
) -> None:
    before = (root / notebook).read_bytes()
    out = stateless.call(tool, {"notebook": notebook, **arguments}, [{"audience": "assistant", "format": "content"}])
    assert out.is_error and hint in text_of(out[AC])
    assert (root / notebook).read_bytes() == before


def test_legacy_shape_at_2025_11_25(legacy: CheckedClient, notebook: str) -> None:
    result = legacy.call("execute_cell", {"notebook": notebook, "cell_index": 0})
    assert result[AS]["kind"] == "cell.execute"
    result = legacy.call("restart_notebook", {"notebook": notebook})
    assert result[AS]["kind"] == "notebook.restart"
