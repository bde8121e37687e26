"""What reaches the model over a realistic session: tokens per step, per contestant, with the facts checked.

One scripted piece of data work (bench.session_script: make a notebook, load a 10,000-row CSV, describe it,
group and plot it, hit a KeyError and fix it, print a 3,000-line log, read the notebook back, list files and
variables, run it all again) is replayed through the tools against each server, by the project's client
(mcp_variants.client.ClientSession on stdio), and each result is read the way a host puts it in the model's
context. Contestants (one replay may be read two ways):

  ours 2026-12-01 default        no requestedOutputs: assistant/content
  ours 2026-12-01 +programmatic  requestedOutputs assistant/content + programmatic/structured; the model reads
                                 assistant/content (the program's share is recorded, not counted)
  ours 2025-11-25 content        the legacy `content`
  ours 2025-11-25 +structured    the same results read by a host that also puts `structuredContent` in context
  jmcp 2.2.4 content             jupyter-mcp-server 2.2.4 at 2025-11-25 (its own venv, build/bench-envs/anchor, made
                                 with uv; on a JupyterLab with real-time collaboration from the server's
                                 environment, so its kernel runs the same pandas), the same steps in its tools
  jmcp 2.2.4 +structured         the same results, `structuredContent` in context too
  ours 2025-11-25 no cap         ours at 2025-11-25 with the anchor's "no cap" (--output-cap up to --hard-cap, 4 MB):
                                 the equal-cap row, where the variants alone differ
  jmcp 2.2.4 cut like ours       the anchor's results, each text block cut as ours cuts an output (its start and end,
                                 --output-cap 20,000 bytes, a notice between): what a cap alone would save it

The tool list is counted too, per era and per host style, as a host puts it in the model's context once per
session: `function` is name + description + inputSchema of each tool the model may call (an App-only tool left
out), `listed` each tool object whole as tools/list returns it (output schemas or outputVariants too).

Counted per step and in total: tokens (bench.tokens: gpt-tokenizer's o200k_base, offline) of the text the model
reads (text blocks; a structured payload as compact JSON; other blocks as their JSON), its UTF-8 bytes, and
images by count and decoded bytes (an image is not text tokens). Each step's facts (the value describe() gave,
the missing column's name, the log's last line, the file's name, ...) must be in what the model read: a missing
fact fails that step for that contestant, so fewer tokens never means less information.

Run alone: python -m bench.context [--rows N] [--contestants NAME,NAME] [--record]
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_variants.client import CallResult, ClientError, ClientSession, StdioConnection, StdioTransport
from mcp_variants.jupyter.server_launcher import COLLABORATION_EXTENSIONS, JupyterServerProcess
from mcp_variants.protocol.types import ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED, Selector
from mcp_variants.tools.shared.text import cap_text

from . import cli, tokens
from .record import REPO, record_part
from .session_script import CSV, IMAGE, Call, Step, steps, write_csv

sys.path.insert(0, str(REPO / "tests"))  # the test harness's environments: uv, and the anchor's pinned requirement
from support.envs import ANCHOR_REQUIREMENTS, uv_venv  # noqa: E402

ROWS = 10_000
OUR_CAP = 20_000  # --output-cap's default: the anchor cut like ours is cut to it
NO_CAP = 4_000_000  # --hard-cap's default: ours "uncapped" as the anchor is (a run keeps no more than this)
ENVS = REPO / "build" / "bench-envs"  # git-ignored, and outside bench/, whose modules the import checks walk
ANCHOR = "jupyter-mcp-server"
ANCHOR_VERSION = ANCHOR_REQUIREMENTS[0].split("==")[1]
OURS_DEFAULT = "ours 2026-12-01 default"
THEIRS = f"jmcp {ANCHOR_VERSION} content"


@dataclass(frozen=True)
class Replay:
    """One run of the session against one server at one version, with one selection."""

    server: str  # "ours" or ANCHOR
    version: str
    requested: tuple[Selector, ...] | None = None
    output_cap: int | None = None  # ours: --output-cap (None: the default)


@dataclass(frozen=True)
class Contestant:
    name: str
    replay: str
    structured_too: bool  # the host also puts structuredContent in the model's context (legacy results)
    about: str
    column: str  # its header in the printed table
    cut_to: int | None = None  # each text block cut as ours cuts an output, to this many bytes (the anchor cut like ours)


REPLAYS = {
    "ours-2026": Replay("ours", "2026-12-01"),
    "ours-2026-both": Replay("ours", "2026-12-01", (ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED)),
    "ours-2025": Replay("ours", "2025-11-25"),
    "ours-2025-nocap": Replay("ours", "2025-11-25", output_cap=NO_CAP),
    "anchor": Replay(ANCHOR, "2025-11-25"),
}
CONTESTANTS = (
    Contestant(OURS_DEFAULT, "ours-2026", False, "2026-12-01, no requestedOutputs: assistant/content", "ours default"),
    Contestant("ours 2026-12-01 +programmatic", "ours-2026-both", False,
               "2026-12-01, assistant/content + programmatic/structured requested; the model reads assistant/content", "ours +program"),
    Contestant("ours 2025-11-25 content", "ours-2025", False, "2025-11-25, the legacy content", "ours 2025"),
    Contestant("ours 2025-11-25 +structured", "ours-2025", True, "2025-11-25, content and structuredContent in context",
               "ours 2025 +sC"),
    Contestant(THEIRS, "anchor", False, f"{ANCHOR} {ANCHOR_VERSION} at 2025-11-25, content", "jmcp"),
    Contestant(f"jmcp {ANCHOR_VERSION} +structured", "anchor", True,
               f"{ANCHOR} {ANCHOR_VERSION} at 2025-11-25, content and structuredContent in context", "jmcp +sC"),
    Contestant("ours 2025-11-25 no cap", "ours-2025-nocap", False,
               f"2025-11-25 content, --output-cap {NO_CAP:,} (the anchor's no cap): the equal-cap row", "ours no cap"),
    Contestant(f"jmcp {ANCHOR_VERSION} cut like ours", "anchor", False,
               f"{ANCHOR} {ANCHOR_VERSION} content, each text block cut to {OUR_CAP:,} bytes as ours cuts an output", "jmcp cut",
               cut_to=OUR_CAP),
)
HOST_STYLES = ("function", "listed")


# ---- what the model reads ---------------------------------------------------------------------------------


@dataclass
class Seen:
    """What one call put in the model's context: text (tokenized) and images (counted apart)."""

    texts: list[str]
    image_bytes: list[int]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read_blocks(blocks: Any, seen: Seen) -> None:
    for block in blocks if isinstance(blocks, (list, tuple)) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            seen.texts.append(str(block.get("text", "")))
        elif kind == "image":
            seen.image_bytes.append(len(base64.b64decode(block.get("data", ""))))
        else:  # a resource link, an embedded resource, audio: the host shows the model the block itself
            seen.texts.append(compact(block))


def model_reads(result: CallResult, structured_too: bool, cut_to: int | None = None) -> Seen:
    seen = Seen([], [])
    if result.legacy:
        read_blocks(result.content, seen)
        if structured_too and result.has_structured_content:
            seen.texts.append(compact(result.structured_content))
    else:
        read_blocks(result.output(ASSISTANT_CONTENT).value, seen)
    if cut_to is not None:
        seen.texts = [cap_text(text, cut_to, hint=CUT_HINT, tail=True).text for text in seen.texts]
    return seen


# What the anchor cut like ours says of the rest: as long as ours says it, so that only the cut differs.
CUT_HINT = ('lines 151-2850 of 3001: read_output(uri="mcp-variants://runs/0123456789abcdef/outputs/0", line=151), '
            'or add pattern="<regex>" to find lines')


def tool_list_texts(tools: list[dict[str, Any]], style: str) -> list[str]:
    """Each tool as a host puts it in the model's context in `style` (HOST_STYLES)."""
    if style == "listed":
        return [compact(tool) for tool in tools]
    return [compact({"name": t["name"], "description": t.get("description", ""), "inputSchema": t.get("inputSchema", {})})
            for t in tools if (t.get("_meta") or {}).get("ui", {}).get("visibility") != ["app"]]


def missing(facts: tuple[str, ...], seen: Seen) -> list[str]:
    text = "\n".join(seen.texts)
    return [fact for fact in facts if not (seen.image_bytes if fact == IMAGE else fact in text)]


# ---- the servers --------------------------------------------------------------------------------------------


def anchor_env() -> Path:
    """build/bench-envs/anchor: jupyter-mcp-server 2.2.4 in a venv of its own (uv), made once per requirement."""
    folder = ENVS / "anchor"
    stamp = folder / ".installed"
    want = compact({"python": sys.version.split()[0], "requirements": list(ANCHOR_REQUIREMENTS)})
    if not (stamp.is_file() and stamp.read_text() == want):
        shutil.rmtree(folder, ignore_errors=True)
        ENVS.mkdir(parents=True, exist_ok=True)
        uv_venv(folder, ANCHOR_REQUIREMENTS)
        stamp.write_text(want)
    return folder


@contextmanager
def session_on(replay: Replay, folder: Path, rows: int, exits: dict[str, Any], theirs: dict[str, Any]) -> Iterator[ClientSession]:
    """A server for `replay`, serving a folder that holds the CSV, and an open client session to it; the exit codes
    go to `exits` (ours) and `theirs` (jupyter-mcp-server and its JupyterLab)."""
    with ExitStack() as stack:
        if replay.server == ANCHOR:
            env = anchor_env()
            lab = JupyterServerProcess(folder / "lab", app="jupyterlab", extensions=COLLABORATION_EXTENSIONS)
            lab.start(timeout=120)
            stack.callback(lambda: theirs.__setitem__("jupyterlab", lab.stop()))
            root = lab.root
            command = [str(env / "bin" / ANCHOR), "start", "--transport", "stdio", "--jupyter-url", lab.url.rstrip("/"),
                       "--jupyter-token", lab.token]
        else:
            root = folder / "root"
            root.mkdir()
            command = [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root)]
            if replay.output_cap is not None:
                command += ["--output-cap", str(replay.output_cap)]
        write_csv(root / CSV, rows)
        connection = StdioConnection(command, cwd=folder)
        session = ClientSession(StdioTransport(connection), replay.version, timeout=300)

        def close() -> None:
            session.close()
            code = connection.process.returncode
            if replay.server == ANCHOR:
                theirs[ANCHOR] = code  # it does not exit at its stdin's end: SIGTERM (-15) after the grace
            else:
                exits[f"ours {replay.version}{' +programmatic' if replay.requested else ''}{' no cap' if replay.output_cap else ''}"] = code

        stack.callback(close)
        session.open()
        yield session


def replay_session(replay: Replay, script: tuple[Step, ...], rows: int, exits: dict[str, Any],
                   theirs: dict[str, Any]) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Each step's calls: the checked result (or the client's error) and its time; and the tools as listed."""
    done: list[list[dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="mcpv-bench-context-") as tmp, session_on(replay, Path(tmp), rows, exits, theirs) as session:
        listed = [dict(tool.raw or {"name": tool.name}) for tool in session.list_tools()]
        for step in script:
            calls: list[dict[str, Any]] = []
            for call in step.ours if replay.server == "ours" else step.theirs:
                calls.append(one_call(session, call, replay.requested))
            done.append(calls)
    return done, listed


def one_call(session: ClientSession, call: Call, requested: tuple[Selector, ...] | None) -> dict[str, Any]:
    began = time.perf_counter()
    try:
        result = session.call(call.tool, call.arguments, requested)
    except ClientError as exc:
        return {"tool": call.tool, "error": f"{type(exc).__name__}: {str(exc)[:500]}", "ms": round((time.perf_counter() - began) * 1000)}
    return {"tool": call.tool, "result": result, "ms": round((time.perf_counter() - began) * 1000)}


# ---- counting -------------------------------------------------------------------------------------------------


def score(contestant: Contestant, script: tuple[Step, ...], calls: list[list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Each step's reading for `contestant` (tokens filled in later) and the text of each step to count."""
    rows, texts = [], []
    for step, step_calls in zip(script, calls, strict=True):
        seen = Seen([], [])
        errors, flagged = [], False
        for call in step_calls:
            if "error" in call:
                errors.append(call["error"])
                continue
            result: CallResult = call["result"]
            flagged |= result.is_error
            one = model_reads(result, contestant.structured_too, contestant.cut_to)
            seen.texts += one.texts
            seen.image_bytes += one.image_bytes
        text = "\n".join(seen.texts)
        texts.append(text)
        rows.append({"step": step.name, "calls": [c["tool"] for c in step_calls], "ms": sum(c["ms"] for c in step_calls),
                     "bytes": len(text.encode()), "images": len(seen.image_bytes), "image_bytes": sum(seen.image_bytes),
                     "is_error": flagged, "client_errors": errors,
                     "missing_facts": list(step.facts) if errors else missing(step.facts, seen)})
    return rows, texts


def program_bytes(calls: list[list[dict[str, Any]]]) -> int:
    """The programmatic/structured outputs' bytes: delivered to the client's code, never to the model."""
    return sum(len(compact(c["result"].output(PROGRAMMATIC_STRUCTURED).value).encode())
               for step in calls for c in step if "result" in c and not c["result"].legacy
               and any(o.selector == PROGRAMMATIC_STRUCTURED for o in c["result"].outputs))


def run(rows: int = ROWS, contestants: tuple[str, ...] = (), dump: Path | None = None) -> dict[str, Any]:
    """The session against each chosen contestant (all by default); `dump`: a folder to write what each read, per step."""
    chosen = [c for c in CONTESTANTS if not contestants or c.name in contestants]
    with tempfile.TemporaryDirectory(prefix="mcpv-bench-context-csv-") as tmp:
        csv = Path(tmp) / CSV
        write_csv(csv, rows)
        script = steps(csv)
        csv_bytes = csv.stat().st_size
    exits: dict[str, Any] = {}
    theirs: dict[str, Any] = {}
    replays: dict[str, list[list[dict[str, Any]]] | str] = {}
    tool_lists: dict[str, list[dict[str, Any]]] = {}
    for key in dict.fromkeys(c.replay for c in chosen):
        try:
            replays[key], tool_lists[key] = replay_session(REPLAYS[key], script, rows, exits, theirs)
        except Exception as exc:  # noqa: BLE001 - a contestant that cannot run is recorded as skipped, the others still run
            replays[key] = f"{type(exc).__name__}: {str(exc)[:800]}"
    results, texts = [], []
    for contestant in chosen:
        calls = replays[contestant.replay]
        entry: dict[str, Any] = {"name": contestant.name, "about": contestant.about, "column": contestant.column}
        if isinstance(calls, str):
            entry["skipped"] = calls
        else:
            entry["steps"], step_texts = score(contestant, script, calls)
            texts += step_texts
            if dump is not None:
                for step, text in zip(script, step_texts, strict=True):
                    (dump / f"{contestant.name} - {step.name}.txt".replace("/", "_")).write_text(text)
            if REPLAYS[contestant.replay].requested:
                entry["programmatic_bytes_not_in_context"] = program_bytes(calls)
        results.append(entry)
    lists = [(key, style, tool_list_texts(tools, style)) for key, tools in tool_lists.items() if not REPLAYS[key].requested
             and not REPLAYS[key].output_cap for style in HOST_STYLES]
    counts = iter(tokens.count(texts + ["\n".join(listed) for _, _, listed in lists]))
    for entry in results:
        for row in entry.get("steps", ()):
            row["tokens"] = next(counts)
        if "steps" in entry:
            entry["totals"] = {key: sum(row[key] for row in entry["steps"]) for key in ("tokens", "bytes", "images", "image_bytes")}
            entry["failed_steps"] = [row["step"] for row in entry["steps"] if row["missing_facts"]]
            entry["errors"] = sum(len(row["client_errors"]) for row in entry["steps"]) + len(entry["failed_steps"])
    listings = [{"server": REPLAYS[key].server, "version": REPLAYS[key].version, "style": style, "tools": len(listed),
                 "bytes": len("\n".join(listed).encode()), "tokens": next(counts)} for key, style, listed in lists]
    return {"rows": rows, "csv_bytes": csv_bytes, "tokenizer": {"package": tokens.PACKAGE, "version": tokens.version(),
                                                              "encoding": tokens.ENCODING},
            "steps": [{"name": s.name, "what": s.what, "facts": list(s.facts)} for s in script],
            "contestants": results, "tool_lists": listings, "verdict": verdict(results, listings),
            "server_exit_codes": exits, "their_exit_codes": theirs}


def verdict(results: list[dict[str, Any]], listings: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Ours by default against jupyter-mcp-server's content, over the session and on each step; with the tool list
    counted once (its `function` style, at 2026-12-01 for ours); 2025-11-25 content + structuredContent against content."""
    by_name = {r["name"]: r for r in results if "steps" in r}
    ours, theirs = by_name.get(OURS_DEFAULT), by_name.get(THEIRS)
    if ours is None or theirs is None:
        return {}
    more = [{"step": a["step"], "ours": a["tokens"], "theirs": b["tokens"]}
            for a, b in zip(ours["steps"], theirs["steps"], strict=True) if a["tokens"] > b["tokens"]]
    mine, their = ours["totals"]["tokens"], theirs["totals"]["tokens"]
    said: dict[str, Any] = {"ours_tokens": mine, "theirs_tokens": their, "ratio": round(mine / their, 3), "fewer": mine < their,
                            "steps_where_ours_reads_more": more}
    lists = {(item["server"], item["version"], item["style"]): item["tokens"] for item in listings or ()}
    our_list, their_list = lists.get(("ours", "2026-12-01", "function")), lists.get((ANCHOR, "2025-11-25", "function"))
    if our_list is not None and their_list is not None:
        said["with_tool_list"] = {"ours": mine + our_list, "theirs": their + their_list,
                                  "ratio": round((mine + our_list) / (their + their_list), 3)}
    content, both = by_name.get("ours 2025-11-25 content"), by_name.get("ours 2025-11-25 +structured")
    if content is not None and both is not None:
        said["structured_in_context_ratio"] = round(both["totals"]["tokens"] / content["totals"]["tokens"], 3)
    return said


# ---- the table -----------------------------------------------------------------------------------------------


def format_report(report: dict[str, Any]) -> str:
    ran = [c for c in report["contestants"] if "steps" in c]
    tokenizer = report["tokenizer"]
    lines = [f"What reaches the model over one session ({report['rows']:,}-row CSV, {report['csv_bytes']:,} B): "
             f"{tokenizer['package']} {tokenizer['version']} {tokenizer['encoding']} tokens per step (x: a fact missing)"]
    width = 15
    lines.append(f"  {'step':<10}" + "".join(f"{c.get('column', c['name'])[:width]:>{width + 1}}" for c in ran))
    for i, step in enumerate(report["steps"]):
        cells = [f"{c['steps'][i]['tokens']:,}{' x' if c['steps'][i]['missing_facts'] else '  '}" for c in ran]
        lines.append(f"  {step['name']:<10}" + "".join(f"{cell:>{width + 1}}" for cell in cells))
    lines.append(f"  {'tokens':<10}" + "".join(f"{c['totals']['tokens']:>{width - 1},}  " for c in ran))
    lines.append(f"  {'bytes':<10}" + "".join(f"{c['totals']['bytes']:>{width - 1},}  " for c in ran))
    lines.append(f"  {'images':<10}" + "".join(f"{c['totals']['images']:>{width - 8}} {c['totals']['image_bytes'] // 1024:>4} KB  "
                                                for c in ran))
    for contestant in report["contestants"]:
        if "skipped" in contestant:
            lines.append(f"  {contestant['name']}: SKIPPED ({contestant['skipped']})")
        for row in contestant.get("steps", ()):
            if row["missing_facts"]:
                lines.append(f"  {contestant['name']} / {row['step']}: missing {row['missing_facts']} {row['client_errors'] or ''}")
    for listing in report.get("tool_lists", ()):
        lines.append(f"  tool list, {listing['server']} {listing['version']} {listing['style']}: {listing['tools']} tools, "
                     f"{listing['tokens']:,} tokens ({listing['bytes']:,} B)")
    if ratio := report["verdict"].get("structured_in_context_ratio"):
        lines.append(f"  ours 2025-11-25 content + structuredContent / content: {ratio}x")
    if with_list := report["verdict"].get("with_tool_list"):
        lines.append(f"  with the tool list counted once (function style): ours {with_list['ours']:,} vs {with_list['theirs']:,}, "
                     f"{with_list['ratio']}x")
    if verdict_ := report["verdict"]:
        lines.append(f"  ours by default / {THEIRS}: {verdict_['ratio']}x the tokens ({verdict_['ours_tokens']:,} vs "
                     f"{verdict_['theirs_tokens']:,}); steps where ours reads more: "
                     + (", ".join(f"{m['step']} ({m['ours']:,} vs {m['theirs']:,})"
                                  for m in verdict_["steps_where_ours_reads_more"]) or "none"))
    return "\n".join(lines)


def names(text: str) -> tuple[str, ...]:
    """Contestants named in a comma-separated list (ValueError for a name that is none)."""
    chosen = tuple(name.strip() for name in text.split(",") if name.strip())
    if unknown := set(chosen) - {c.name for c in CONTESTANTS}:
        raise ValueError(f"no contestant named {', '.join(sorted(unknown))}; the contestants: {', '.join(c.name for c in CONTESTANTS)}")
    return chosen


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__, prog="python -m bench.context")
    parser.add_argument("--rows", type=int, default=ROWS, help=f"rows of the generated CSV (default {ROWS})")
    parser.add_argument("--contestants", default="", metavar="NAME,NAME", help="only these (default: all); the names: "
                        + ", ".join(c.name for c in CONTESTANTS))
    parser.add_argument("--record", action="store_true", help="write bench/results/<date>-<sha>-context.json and context-latest.json")
    parser.add_argument("--dump", type=Path, metavar="FOLDER", help="write the text each contestant's model read, per step, into FOLDER")
    args = parser.parse_args(argv)
    try:
        chosen = names(args.contestants)
    except ValueError as exc:
        parser.error(f"--contestants: {exc}")
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    report = run(args.rows, chosen, args.dump)
    cli.show(report, format_report, args.json)
    if args.record:
        print(f"recorded {record_part('context', report).relative_to(REPO)}")


if __name__ == "__main__":
    main()

