"""The server's options, each defined once: its name, default, environment variable and help.

`mcp-variants serve`'s command line (`add_serve_arguments`, whose `--help` docs/examples/cli-serve.md shows) and
the Jupyter server extension's traitlets (`traitlet`, in jupyter_extension/app.py) are made from these records;
tests/unit/test_options.py checks that both say what the records say. A default that a lower layer owns (the
HTTP limits of the server API, the tools' limits) is read from there, not written again.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..images import DEFAULT_MAX_PIXELS, ImageMode
from ..jupyter.runtime import DEFAULT_AGENT_NAME
from ..limits import Limits
from ..sdk import HttpLimits
from ..state import DEADLINE_S

ENV_PREFIX = "MCP_VARIANTS_"

Kind = Literal["text", "int", "float", "flag", "path", "names", "choice"]


@dataclass(frozen=True)
class BadEnv:
    """An environment value that does not parse. Kept as the option's default and reported once parsing is done,
    so that --help and --version still work, and a flag given in its place wins."""

    variable: str
    value: str
    expected: str

    def __str__(self) -> str:
        return f"{self.variable}={self.value!r} is not {self.expected}"


@dataclass(frozen=True)
class Option:
    """One option of `serve`: `name` is its argparse dest and its traitlet's name; `--name-with-dashes` its flag."""

    name: str
    help: str
    default: Any = None
    kind: Kind = "text"
    env: str | None = ""  # "": MCP_VARIANTS_<NAME>; None: none; else that variable (a standard one: JUPYTER_URL)
    choices: Callable[[], list[str]] | None = None
    default_text: str | None = None  # the default as the help says it, where the value would not read well
    flag: str = ""  # "": --name-with-dashes
    metavar: str | None = None
    in_extension: bool = False  # also a traitlet of the Jupyter server extension
    secret: bool = False  # its environment variable is removed once read: the kernels we start must not inherit it
    extra: dict[str, Any] = field(default_factory=dict)  # argparse keywords of its own (append)

    @property
    def variable(self) -> str | None:
        return ENV_PREFIX + self.name.upper() if self.env == "" else self.env

    @property
    def option_string(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    def help_line(self) -> str:
        """The help with its variable and default, as --help and the docs' table say them."""
        said = []
        if self.variable:
            said.append(self.variable + ("=1" if self.kind == "flag" else ", comma-separated" if self.kind == "names" else ""))
        shown = self.default_text if self.default_text is not None else self.default
        if shown not in (None, False, [], "") and self.kind != "flag":
            said.append(f"default {shown:g}" if isinstance(shown, float) else f"default {shown}")
        return f"{self.help} [{', '.join(said)}]" if said else self.help

    def from_environment(self) -> Any:
        """The default, or the environment's value; BadEnv for one that does not parse."""
        raw = os.environ.get(self.variable) if self.variable else None
        if not raw:  # unset, or set to nothing
            return self.default
        if self.kind == "flag":
            return raw in ("1", "true", "yes")
        try:
            return self.parse(raw)
        except ValueError:
            expected = {"int": "a whole number", "float": "a number"}.get(self.kind, f"one of {', '.join(self.choice_list())}")
            return BadEnv(self.variable or "", raw, expected)

    def parse(self, raw: str) -> Any:
        if self.kind == "int":
            return int(raw)
        if self.kind == "float":
            return float(raw)
        if self.kind == "path":  # a desktop client's JSON args reach us with no shell between: `~` is ours to expand
            return Path(raw).expanduser()
        if self.kind == "names":
            return [name.strip() for name in raw.split(",") if name.strip()]
        if self.kind == "choice" and raw not in self.choice_list():
            raise ValueError(raw)
        return raw

    def choice_list(self) -> list[str]:
        return self.choices() if self.choices else []


def _compat_servers() -> list[str]:
    from ..catalog import compat_servers  # reads variants/compat/ only when asked

    return compat_servers()


LIMITS, HTTP = Limits(), HttpLimits.personal()
IMAGE_MODES = [m.value for m in ImageMode]

SERVE_OPTIONS: tuple[Option, ...] = (
    Option("http", "serve streamable HTTP at /mcp instead of stdio", False, "flag"),
    Option("host", "HTTP bind address; anything but loopback needs --token", "127.0.0.1"),
    Option("port", "HTTP port", 8000, "int"),
    Option("allowed_hosts", "HTTP: a Host header served besides loopback and --host, e.g. this machine's name or address as "
           "clients reach it (NAME or NAME:PORT); repeatable (DNS-rebinding protection refuses the others with 421)",
           [], "names", flag="--allowed-host", metavar="NAME", extra={"action": "append"}),
    Option("token", "bearer token every HTTP request must carry", secret=True),
    Option("hub_api_url", "HTTP: every request carries a JupyterHub token of its caller's own, checked with this Hub "
           "(https://HUB/hub/api/); calls run and are audited as that Hub user. Instead of --token", env="JUPYTERHUB_API_URL"),
    Option("hub_scope", "with --hub-api-url, the scope a token must carry",
           default_text="access:services!service=NAME for JUPYTERHUB_SERVICE_NAME, or mcp-variants"),
    Option("root", "folder that notebooks and files live in; the tools take no path outside it (not a sandbox: the code "
           "kernels run can reach whatever you can)", Path("."), "path", default_text="."),
    Option("timeout", "default seconds before an execution is interrupted", LIMITS.default_timeout, "float", in_extension=True),
    Option("output_cap", "bytes of text per output for assistant and user variants", LIMITS.assistant_text_bytes, "int",
           in_extension=True),
    Option("hard_cap", "bytes of output a run keeps at most, programmatic included", LIMITS.hard_cap_bytes, "int",
           in_extension=True),
    Option("kernel", "the kernelspec kernels start with, from `jupyter kernelspec list` (a notebook's metadata.kernelspec "
           "picks its own)", "python3"),
    Option("images", "images in content results: inline image blocks, or resource_link blocks to a resource resources/read "
           "returns", ImageMode.INLINE.value, "choice", choices=lambda: IMAGE_MODES, in_extension=True),
    Option("image_max_pixels", "inline images for the model are scaled down to this many pixels on their longer side; 0: never",
           DEFAULT_MAX_PIXELS, "int", in_extension=True),
    Option("jupyter_url", "run kernels and keep files on this Jupyter server instead of the embedded runtime", env="JUPYTER_URL"),
    Option("jupyter_token", "the token of --jupyter-url; never logged or returned", env="JUPYTER_TOKEN", secret=True),
    Option("gateway_url", "run kernels on this Jupyter Enterprise Gateway; notebooks and files stay under --root, or on "
           "--jupyter-url", env="JUPYTER_GATEWAY_URL"),
    Option("gateway_token", "the token of --gateway-url (its EG_AUTH_TOKEN); never logged or returned",
           env="JUPYTER_GATEWAY_AUTH_TOKEN", secret=True),
    Option("embedded", "keep the embedded runtime even when this user runs a Jupyter server (JupyterLab) on --root; "
           "without it (and without --jupyter-url) the server works through that one", False, "flag"),
    Option("agent_name", "the name people see the agent by in a live notebook in JupyterLab; {client} is the MCP client's "
           "own name", DEFAULT_AGENT_NAME, default_text=f"'{DEFAULT_AGENT_NAME}'"),
    Option("max_message_bytes", "largest message taken: a stdio line, an HTTP request body; a larger one is refused",
           HTTP.max_body_bytes, "int", in_extension=True),
    Option("session_idle_timeout", "HTTP: seconds a session may go without a request in flight or an open stream before it ends",
           HTTP.session_idle_timeout, "float", in_extension=True),
    Option("max_sessions", "HTTP: sessions open at once; one more ends the least recently used idle one (503 only while "
           "every one is busy)", HTTP.max_sessions, "int", in_extension=True),
    Option("read_timeout", "HTTP: seconds for a request's headers, and between pieces of its body", HTTP.read_timeout, "float"),
    Option("max_connections", "HTTP: connections open at once; one more closes the one longest waiting for a request",
           HTTP.max_connections, "int"),
    Option("compat", "list that server's tool schemas (argument names, required, enums, defaults) in place of ours and "
           "take calls by them, for programs and prompts written against it", kind="choice", choices=_compat_servers),
    Option("audit_log", "one JSON line per tool call (when, who, which tool, a digest of the arguments, the outcome, the "
           "duration, the kernels) appended to this file, or `logger:NAME` for that Python logger", in_extension=True),
    Option("audit_content", "the audit lines also carry the arguments in full (the code) and the text the kernels printed",
           False, "flag", in_extension=True),
    Option("state_url", "keep tasks, run outputs and image links on this Redis (redis:// or rediss://, a password as "
           "redis://:PASSWORD@HOST; a Sentinel deployment as redis+sentinel://:PASSWORD@HOST:26379,HOST:26379/SERVICE/DB), "
           "shared by every worker pointed at it: docs/guides/scale-out.md; needs the `redis` extra",
           in_extension=True, secret=True),  # its URL may carry the store's password
    Option("state_namespace", "the prefix of this deployment's keys on --state-url", "mcp-variants", in_extension=True),
    Option("state_timeout", "seconds a call waits for --state-url's answer before it fails and says so (a store that is "
           "down, frozen or slow)", DEADLINE_S, "float", in_extension=True),
    Option("log_level", "log level, to stderr", "WARNING"),
)
OPTIONS: dict[str, Option] = {option.name: option for option in SERVE_OPTIONS}
EXTENSION_OPTIONS: tuple[Option, ...] = tuple(option for option in SERVE_OPTIONS if option.in_extension)
SECRET_VARIABLES: tuple[str, ...] = tuple(option.variable for option in SERVE_OPTIONS if option.secret and option.variable)


def add_serve_arguments(parser: argparse.ArgumentParser, options: Sequence[Option] = SERVE_OPTIONS) -> None:
    """Each option as a flag of `parser`, its default taken from the environment when set there."""
    for option in options:
        keywords: dict[str, Any] = {"dest": option.name, "default": option.from_environment(), "help": option.help_line(),
                                    **option.extra}
        if option.kind == "flag":
            keywords["action"] = "store_true"
        else:
            if option.metavar:
                keywords["metavar"] = option.metavar
            if option.kind in ("int", "float", "path"):
                keywords["type"] = option.parse
            if option.kind == "choice":
                keywords["choices"] = option.choice_list()
        parser.add_argument(option.option_string, **keywords)


def bad_env(args: argparse.Namespace) -> list[BadEnv]:
    return [value for value in vars(args).values() if isinstance(value, BadEnv)]
