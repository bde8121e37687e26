"""Each option of the server is defined once (server/options.py): `serve`'s command line and the Jupyter server
extension's traitlets are made from the same records, and the docs name each one."""

from __future__ import annotations

import argparse
import re
from dataclasses import fields
from pathlib import Path

import pytest
from jupyter_server.extension.application import ExtensionApp

from mcp_variants.jupyter_extension.app import MCPVariants
from mcp_variants.server.compose import ServerConfig
from mcp_variants.server.options import OPTIONS, SECRET_VARIABLES, SERVE_OPTIONS, BadEnv, Option, add_serve_arguments

REPO = Path(__file__).resolve().parents[2]
EXTENSION_ONLY = {"path", "kernel"}  # the extension's own: its endpoint, and the server's default kernel as default


def serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    return parser


def test_the_command_line_has_each_option_with_its_default_and_help(monkeypatch: pytest.MonkeyPatch) -> None:
    for option in SERVE_OPTIONS:
        if option.variable:
            monkeypatch.delenv(option.variable, raising=False)
    parsed = vars(serve_parser().parse_args([]))
    assert parsed == {option.name: option.default for option in SERVE_OPTIONS}
    shown = re.sub(r"\s", "", serve_parser().format_help())  # as argparse wraps it, at spaces and after hyphens
    for option in SERVE_OPTIONS:
        assert option.option_string in shown and re.sub(r"\s", "", option.help_line()) in shown, option.name


def test_the_extension_has_each_shared_option_as_a_traitlet_with_its_default_and_help() -> None:
    inherited = set(ExtensionApp.class_traits(config=True))  # the Jupyter extension's own (log_level, ...)
    traits = {name: trait for name, trait in MCPVariants.class_traits(config=True).items() if name not in inherited}
    shared = set(traits) - EXTENSION_ONLY
    assert shared == {option.name for option in SERVE_OPTIONS if option.in_extension}, "a traitlet that is no option, or back"
    for name in shared:
        option, trait = OPTIONS[name], traits[name]
        assert trait.default_value == (option.default if option.default is not None else ""), name
        assert trait.help.rstrip(".").lower() == option.help.lower(), name


def test_the_extensions_options_are_in_its_guide() -> None:
    """The guide includes the table made from the extension's traitlets (scripts/gen_docs.py; tests/docs holds it
    current), which names every one of them."""
    guide = (REPO / "docs" / "guides" / "jupyter.md").read_text()
    assert '--8<-- "examples/extension-options.md"' in guide[guide.index("## Options"):guide.index("## Who did what")]
    table = (REPO / "docs" / "examples" / "extension-options.md").read_text()
    missing = [name for name in (*EXTENSION_ONLY, *(o.name for o in SERVE_OPTIONS if o.in_extension)) if f"| `{name}` |" not in table]
    assert not missing, f"docs/examples/extension-options.md lacks {missing}"


def test_an_environment_value_that_does_not_parse_is_kept_to_be_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_VARIANTS_PORT", "eighty")
    monkeypatch.setenv("MCP_VARIANTS_IMAGES", "sideways")
    assert OPTIONS["port"].from_environment() == BadEnv("MCP_VARIANTS_PORT", "eighty", "a whole number")
    assert str(OPTIONS["images"].from_environment()) == "MCP_VARIANTS_IMAGES='sideways' is not one of inline, link"
    monkeypatch.setenv("MCP_VARIANTS_ALLOWED_HOSTS", "a.example, b.example")
    assert OPTIONS["allowed_hosts"].from_environment() == ["a.example", "b.example"]


def test_a_help_line_names_its_variable_and_default() -> None:
    assert Option("n", "a number", 3, "int").help_line() == "a number [MCP_VARIANTS_N, default 3]"
    assert Option("f", "a flag", False, "flag").help_line() == "a flag [MCP_VARIANTS_F=1]"
    assert re.fullmatch(r"the token \[JUPYTER_TOKEN\]", Option("t", "the token", env="JUPYTER_TOKEN").help_line())


def test_a_path_option_expands_a_leading_tilde(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A desktop client's JSON `args` reach the server with no shell between: "~/notebooks" is the server's to expand."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MCP_VARIANTS_ROOT", "~/from-env")
    assert serve_parser().parse_args(["--root", "~/notebooks"]).root == tmp_path / "notebooks"
    assert serve_parser().parse_args([]).root == tmp_path / "from-env"


def test_the_server_configuration_is_made_of_the_options_with_their_defaults() -> None:
    """server/compose.py's ServerConfig: each field an option of its name, with that option's default; and every option
    the extension has is one of them, so both hosts feed the one composition."""
    config = ServerConfig()
    assert all(getattr(config, f.name) == OPTIONS[f.name].default for f in fields(ServerConfig))
    assert {o.name for o in SERVE_OPTIONS if o.in_extension} <= {f.name for f in fields(ServerConfig)}


def test_the_command_line_and_the_extension_make_the_same_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    for option in SERVE_OPTIONS:
        if option.variable:
            monkeypatch.delenv(option.variable, raising=False)
    given = ["--timeout", "5", "--max-sessions", "7", "--images", "link", "--audit-content"]
    from_cli = ServerConfig.from_options(serve_parser().parse_args(given))
    from_extension = ServerConfig.from_options(MCPVariants(timeout=5.0, max_sessions=7, images="link", audit_content=True))
    assert from_cli == from_extension
    assert (from_cli.timeout, from_cli.max_sessions, from_cli.images, from_cli.audit_log) == (5.0, 7, "link", None)
    assert from_cli.http_limits().max_sessions == 7 and from_cli.limits().default_timeout == 5.0


def test_a_secret_is_marked_on_its_option() -> None:
    assert {"MCP_VARIANTS_TOKEN", "JUPYTER_TOKEN", "JUPYTER_GATEWAY_AUTH_TOKEN", "MCP_VARIANTS_STATE_URL"} == set(SECRET_VARIABLES)
