"""The processes that start without jsonschema's `iri` checkers (mcp_variants/iri_checker.py; bench/tricks.py, row iri)
lose those two checkers and nothing else, and nothing they validate asks for them. If jsonschema, its
meta-schemas or a Jupyter package's event schemas change, these say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

import yaml

VALIDATORS = ("Draft202012Validator", "Draft7Validator")  # the suite's check_schema; jupyter-events' event validation


def _formats(node: Any) -> set[str]:
    if isinstance(node, dict):
        own = {node["format"]} if isinstance(node.get("format"), str) else set()
        return own.union(*(_formats(value) for value in node.values()))
    return set().union(*(_formats(item) for item in node)) if isinstance(node, list) else set()


def _checkers(block: bool) -> dict[str, dict[str, str]]:
    """Each validator's format checkers in a fresh interpreter, with or without the `iri` checkers (the tests'
    own processes run without them: tests/conftest.py)."""
    probe = (f"from mcp_variants.iri_checker import without_iri_checker; {'without_iri_checker(); ' if block else ''}"
             "import json, jsonschema, sys; "
             "print(json.dumps({v: {f: c[0].__qualname__ for f, c in getattr(jsonschema, v).FORMAT_CHECKER.checkers.items()} "
             "for v in sys.argv[1:]}))")
    return json.loads(subprocess.run([sys.executable, "-c", probe, *VALIDATORS], capture_output=True, text=True, check=True).stdout)


def test_only_the_iri_checkers_go() -> None:
    kept, without = _checkers(block=False), _checkers(block=True)
    for validator in VALIDATORS:
        assert set(kept[validator]) - set(without[validator]) == {"iri", "iri-reference"}, validator  # rfc3987-syntax is installed
        assert all(without[validator][name] == kept[validator][name] for name in without[validator]), validator


def test_the_commands_drop_only_a_format_check_schema_never_asks_for() -> None:
    """`check` and `check-client` start without the checkers: sound while the 2020-12 meta-schema asks for none of
    them (the suite's validators take no format_checker)."""
    from jsonschema_specifications import REGISTRY

    asked = set().union(*(_formats(REGISTRY[uri].contents) for uri in REGISTRY if "/draft/2020-12/" in uri))
    assert asked == {"regex", "uri", "uri-reference"}


def _event_schemas() -> dict[str, Any]:
    """Every YAML schema (one with an `$id`) that an installed jupyter* distribution ships: jupyter-events' own,
    jupyter-server's and jupyter-server-ydoc's event schemas, which the Jupyter servers we start register."""
    found = {}
    for dist in distributions():
        if not (dist.metadata["Name"] or "").lower().startswith("jupyter"):
            continue
        for file in dist.files or ():
            if file.suffix in (".yaml", ".yml") and "/static/" not in str(file):
                document = yaml.safe_load(Path(str(dist.locate_file(file))).read_text())
                if isinstance(document, dict) and "$id" in document:
                    found[str(file)] = document
    return found


def test_the_jupyter_servers_we_start_validate_no_iri_format() -> None:
    """jupyter.server_launcher.JupyterServerProcess starts jupyter_server and JupyterLab without the checkers."""
    schemas = _event_schemas()
    assert {"jupyter_server/event_schemas/kernel_actions/v1.yaml", "jupyter_server_ydoc/events/session.yaml"} <= set(schemas)
    asking = {name: sorted(_formats(schema) & {"iri", "iri-reference"}) for name, schema in schemas.items()}
    assert not {name: formats for name, formats in asking.items() if formats}


def test_the_launcher_runs_a_module_as_python_m_does(tmp_path: Path) -> None:
    (tmp_path / "probe.py").write_text(
        "import json, sys\nfrom jsonschema import Draft7Validator\n"
        "print(json.dumps([__name__, sys.argv, 'iri' in Draft7Validator.FORMAT_CHECKER.checkers]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "mcp_variants.iri_checker", "probe", "--port=1", "x"], env=env,
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == ["__main__", [str(tmp_path / "probe.py"), "--port=1", "x"], False]
