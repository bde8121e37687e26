"""The scripted piece of data work bench.context replays: its CSV, its steps, and the facts each step must bring
to the model.

Every step is written twice, once in our tools' names and arguments and once in jupyter-mcp-server 2.2.4's
(variants/compat/jupyter-mcp-server.json has its schemas). Both start from an empty folder holding `sales.csv`;
the code cells are the same text. The facts are computed here, by pandas in this process (the kernels run the
same pandas: the server's environment), as the text a kernel prints for them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when the facts are computed (steps), not by every `python -m bench`
    import pandas as pd

CSV = "sales.csv"
NOTEBOOK = "analysis.ipynb"
THEIR_NAME = "analysis"  # jupyter-mcp-server names each notebook it uses
IMAGE = "<an image>"  # a fact met by an image block, not by text
REGIONS = ("North", "South", "East", "West", "Central")
PRODUCTS = ("widget", "gadget", "gizmo", "sprocket", "doohickey", "flange", "grommet", "lever")
LOG_LINES = 3000
LAST_LOG_LINE = f"training done: {LOG_LINES} epochs, best loss {1 / LOG_LINES:.6f} at epoch {LOG_LINES}"

LOAD = (f"import pandas as pd\nimport matplotlib.pyplot as plt\norders = pd.read_csv('{CSV}', parse_dates=['date'])\n"
        "print(orders.shape)\norders.head()")
DESCRIBE = "orders.describe()"
GROUP = "orders.groupby('region')['units'].sum().sort_values(ascending=False)"
PLOT = "orders.groupby(orders['date'].dt.month)['amount'].sum().plot(kind='bar', title='Revenue by month')\nplt.show()"
BROKEN = "orders.groupby('region')['revenue'].sum().round(2)"
FIXED = "orders.groupby('region')['amount'].sum().round(2)"
LOG = (f"for epoch in range(1, {LOG_LINES + 1}):\n"
       "    print(f'epoch {epoch:5d}  loss={1 / epoch:.6f}  acc={1 - 1 / epoch:.4f}  lr=1.0e-03')\n"
       f"print({LAST_LOG_LINE!r})")
CELLS = (LOAD, DESCRIBE, GROUP, PLOT, BROKEN, LOG)  # the code cells in notebook order (BROKEN is fixed in place)
BROKEN_CELL = CELLS.index(BROKEN)


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Step:
    name: str
    what: str
    ours: tuple[Call, ...]
    theirs: tuple[Call, ...]
    facts: tuple[str, ...]
    expect_error: bool = field(default=False)  # the step's point is an error the model must see


def write_csv(path: Path, rows: int, seed: int = 3279) -> None:
    """`rows` orders of a year: date, region, product, units, price, amount (= units * price)."""
    rng = random.Random(seed)
    first = date(2026, 1, 1)
    lines = ["date,region,product,units,price,amount"]
    for i in range(rows):
        units = rng.randint(1, 20)
        price = round(rng.uniform(2.0, 250.0), 2)
        day = first + timedelta(days=(i * 365) // rows)
        lines.append(f"{day.isoformat()},{rng.choice(REGIONS)},{rng.choice(PRODUCTS)},{units},{price:.2f},{units * price:.2f}")
    path.write_text("\n".join(lines) + "\n")


def _value(series: pd.Series, key: str) -> str:
    """How pandas prints `series[key]` in the series' text (its own column format)."""
    for line in series.to_string().splitlines():
        if line.split()[:1] == [key]:
            return line.split()[-1]
    raise KeyError(key)


def steps(csv: Path) -> tuple[Step, ...]:
    """The session, with its facts read from `csv` the way the kernel will print them."""
    import pandas as pd

    orders = pd.read_csv(csv, parse_dates=["date"])
    described = orders.describe()
    units = orders.groupby("region")["units"].sum().sort_values(ascending=False)
    amount = orders.groupby("region")["amount"].sum().round(2)
    top = str(units.index[0])
    nb, their_nb = {"notebook": NOTEBOOK}, {"notebook_name": THEIR_NAME}

    def cell(source: str) -> tuple[tuple[Call, ...], tuple[Call, ...]]:
        return ((Call("insert_execute_code_cell", {**nb, "source": source}),),
                (Call("insert_execute_code_cell", {**their_nb, "cell_index": -1, "cell_source": source}),))

    # jupyter-mcp-server's new notebook opens with a markdown cell of its own: its code cells are one further on.
    their_index = 1
    return (
        Step("create", "make the notebook", (Call("use_notebook", {"notebook": NOTEBOOK, "create": True}),),
             (Call("use_notebook", {"notebook_name": THEIR_NAME, "notebook_path": NOTEBOOK, "mode": "create"}),), (THEIR_NAME,)),
        Step("load", f"load {len(orders):,} rows", *cell(LOAD), (str(orders.shape), str(orders.loc[0, "product"]))),
        Step("describe", "describe()", *cell(DESCRIBE),
             (_value(described["units"], "mean"), _value(described["amount"], "mean"), _value(described["amount"], "max"))),
        Step("group", "group by region", *cell(GROUP), (top, _value(units, top), _value(units, str(units.index[-1])))),
        Step("plot", "plot by month", *cell(PLOT), (IMAGE,)),
        Step("keyerror", "hit a KeyError", *cell(BROKEN), ("KeyError", "revenue"), expect_error=True),
        Step("fix", "fix the cell, run it",
             (Call("edit_cell_source", {**nb, "cell_index": BROKEN_CELL, "old_string": "'revenue'", "new_string": "'amount'"}),
              Call("execute_cell", {**nb, "cell_index": BROKEN_CELL})),
             (Call("edit_cell_source", {**their_nb, "cell_index": BROKEN_CELL + their_index, "old_string": "'revenue'",
                                        "new_string": "'amount'"}),
              Call("execute_cell", {**their_nb, "cell_index": BROKEN_CELL + their_index})),
             (top, _value(amount, top))),
        Step("log", f"print a {LOG_LINES:,}-line log", *cell(LOG), (LAST_LOG_LINE,)),
        Step("read", "read the notebook back", (Call("read_notebook", nb),), (Call("read_notebook", their_nb),),
             ("import pandas as pd", DESCRIBE, FIXED)),
        Step("files", "list files", (Call("list_files", {}),), (Call("list_files", {}),), (CSV, NOTEBOOK)),
        Step("variables", "list variables", (Call("list_variables", nb),),
             (Call("execute_code", {"code": "%whos"}),), ("orders", "DataFrame")),
        Step("rerun", "run it all again", (Call("execute_notebook", nb),),
             tuple(Call("execute_cell", {**their_nb, "cell_index": i + their_index}) for i in range(len(CELLS))),
             # The plot is not asked for again: the model saw it at "plot", and a rerun that says each cell ran is enough.
             (_value(amount, top), LAST_LOG_LINE)),
    )
