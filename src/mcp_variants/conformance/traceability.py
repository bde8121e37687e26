"""Traceability: every normative sentence of SEP-3279's Specification section, mapped to the
check ids our scenarios emit (or to an exclusion that says why it cannot be observed).

`sep-3279.yaml` (next to this module) is in the official suite's format
(@modelcontextprotocol/conformance `new-sep` / `traceability`):

    sep: 3279
    spec_url: ...
    requirements:
      - check: sep-3279-client-no-duplicate-selector
        text: 'The client MUST NOT include the same selector more than once in requestedOutputs.'
      - text: '...'
        excluded: 'why it cannot be observed'

This module reads the SEP's text and finds its normative sentences (a BCP 14 keyword in
capitals: MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, SHOULD, SHOULD NOT, RECOMMENDED) in the
Specification section, and measures the file against them (`coverage`). The text it reads
is a rendering that lost its markup: inline code is glued to the next word ("hasisError"),
list items run together ("context.programmaticoutputs are") and lines break inside
sentences. So sentences are split with care (`sentences`), and a requirement's `text`
matches the SEP when, ignoring whitespace and `[...]` insertions, it is a verbatim quote.
A sentence is covered when each of its keywords lies inside some requirement's quote.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

SEP_NUMBER: Final = 3279
YAML_PATH: Final = Path(__file__).resolve().parent / "sep-3279.yaml"
SEP_TEXT_ENV: Final = "MCP_VARIANTS_SEP_TEXT"
SEP_TEXT_NAME: Final = "004_51787d210828baf3.txt"  # the project's copy of SEP-3279, in ../shared/seeds/
KEYWORDS: Final = re.compile(r"\b(?:MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|RECOMMENDED)\b")
BOILERPLATE: Final = "are to be interpreted as described in BCP 14"  # the key-words sentence defines, it does not require
_SQUASH: Final = re.compile(r"[\s`]+")
_INSERTION: Final = re.compile(r"\[[^\]]*\]")


# ---- the SEP's text ---------------------------------------------------------------------------------------


def find_sep_text(start: Path | None = None) -> Path:
    """The SEP's text: $MCP_VARIANTS_SEP_TEXT, else shared/seeds/ beside the repository (or an ancestor of it)."""
    explicit = os.environ.get(SEP_TEXT_ENV)
    if explicit:
        return Path(explicit)
    here = (start or Path(__file__)).resolve()
    for folder in here.parents:
        candidate = folder / "shared" / "seeds" / SEP_TEXT_NAME
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"SEP-3279's text ({SEP_TEXT_NAME}) is in no shared/seeds/ above {here}; set {SEP_TEXT_ENV}")


def specification_section(text: str) -> str:
    """The lines between the heading "Specification" and the next top-level heading, "Rationale"."""
    lines = text.splitlines()
    try:
        start = lines.index("Specification")
        end = lines.index("Rationale", start)
    except ValueError:
        raise ValueError("no Specification ... Rationale section in the SEP text") from None
    return "\n".join(lines[start + 1:end])


def _joined(section: str) -> str:
    """One stream of text: a line break inside a sentence becomes a space; one after a heading,
    a table row or a finished sentence stays a break."""
    out: list[str] = []
    lines = [line.strip() for line in section.splitlines()]
    for i, line in enumerate(lines):
        following = lines[i + 1] if i + 1 < len(lines) else ""
        out.append(line)
        ends_sentence = not line or line[-1] in ".:!?|" or line.startswith("|")
        continues = bool(following) and (following[0].islower() or following[0] in "(`\"'")
        out.append(" " if not ends_sentence and continues else "\n")
    return "".join(out)


# A period that ends a sentence: before whitespace, before a list dash, or glued to the next
# item's first word ("format.useroutputs"): a lowercase word on the left, a plain word on the right.
_BOUNDARY: Final = re.compile(r"(?<=[.!?])(?:\s+|(?=-\s))|(?<=(?<![\w./])[a-z]{3}\.)(?=[a-z][a-z]*(?:\s|$))|(?<=[a-z]{4}\.)(?=[a-z]+\s)")


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int  # offsets in the squashed section (see `squash`)
    end: int
    keywords: tuple[int, ...]  # squashed offsets of its BCP 14 keywords


def squash(text: str) -> str:
    """Text without whitespace or backticks: what survives the lost markup on both sides."""
    return _SQUASH.sub("", text)


def sentences(section: str) -> list[Sentence]:
    """The section's sentences that contain a BCP 14 keyword (the boilerplate excluded), in order."""
    found: list[Sentence] = []
    cursor = 0
    flat = squash(section)
    for block in _joined(section).split("\n"):
        for piece in _BOUNDARY.split(block):
            text = piece.strip().removeprefix("- ").strip()
            if not text or not KEYWORDS.search(text) or BOILERPLATE in text:
                cursor = _advance(flat, cursor, text)
                continue
            start = flat.find(squash(text), cursor)
            if start < 0:  # cannot happen: the pieces are the section's own text
                raise ValueError(f"sentence not found in the section: {text[:80]}")
            keywords = tuple(start + len(squash(text[:m.start()])) for m in KEYWORDS.finditer(text))
            found.append(Sentence(text, start, start + len(squash(text)), keywords))
            cursor = start + len(squash(text))
    return found


def _advance(flat: str, cursor: int, text: str) -> int:
    at = flat.find(squash(text), cursor) if text else -1
    return cursor if at < 0 else at + len(squash(text))


def normative_sentences(sep_text: str) -> list[Sentence]:
    return sentences(specification_section(sep_text))


# ---- the traceability file ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    text: str
    check: str | None = None
    excluded: str | None = None
    url: str | None = None

    @property
    def quote(self) -> str:
        """The text as it must appear in the SEP: `[...]` insertions removed, whitespace ignored."""
        return squash(_INSERTION.sub("", self.text))


def load_requirements(path: Path = YAML_PATH) -> tuple[dict[str, Any], list[Requirement]]:
    doc = yaml.safe_load(path.read_text())
    rows = [Requirement(text=r.get("text", ""), check=r.get("check"), excluded=r.get("excluded"), url=r.get("url"))
            for r in doc.get("requirements") or []]
    return doc, rows


@dataclass
class Coverage:
    """How sep-3279.yaml covers the SEP. Every list holds what a test or a report names."""

    sentences: int
    mapped: int  # covered by a requirement with a check id
    excluded: int  # covered by excluded requirements only
    unmapped: list[str] = field(default_factory=list)  # sentences with a keyword no requirement quotes
    dangling: list[str] = field(default_factory=list)  # check ids of the file that no scenario emits
    untracked: list[str] = field(default_factory=list)  # check ids scenarios emit that the file does not declare
    misquoted: list[str] = field(default_factory=list)  # requirement texts that are not quotes of the section
    unkeyed: list[str] = field(default_factory=list)  # requirements with neither check nor excluded

    @property
    def ok(self) -> bool:
        return not (self.unmapped or self.dangling or self.untracked or self.misquoted or self.unkeyed)

    def numbers(self) -> dict[str, int]:
        """sentences, mapped, excluded, unmapped, dangling: the coverage at a glance."""
        return {"sentences": self.sentences, "mapped": self.mapped, "excluded": self.excluded,
                "unmapped": len(self.unmapped), "dangling": len(self.dangling)}


def measure(sep_text: str, requirements: Sequence[Requirement], emitted: Iterable[str]) -> Coverage:
    section = specification_section(sep_text)
    flat = squash(section)
    found = sentences(section)
    spans: list[tuple[int, int, Requirement]] = []
    misquoted: list[str] = []
    for req in requirements:
        at = flat.find(req.quote) if req.quote else -1
        if at < 0:
            misquoted.append(req.text)
        else:
            spans.append((at, at + len(req.quote), req))
    mapped = excluded = 0
    unmapped: list[str] = []
    for sentence in found:
        covering = [req for k in sentence.keywords for a, b, req in spans if a <= k < b]
        if any(not any(a <= k < b for a, b, _ in spans) for k in sentence.keywords):
            unmapped.append(sentence.text)
        elif any(r.check for r in covering):
            mapped += 1
        else:
            excluded += 1
    emitted = {e for e in emitted if e.startswith(f"sep-{SEP_NUMBER}-")}
    declared = {r.check for r in requirements if r.check}
    return Coverage(
        sentences=len(found), mapped=mapped, excluded=excluded, unmapped=unmapped,
        dangling=sorted(declared - emitted), untracked=sorted(emitted - declared), misquoted=misquoted,
        unkeyed=[r.text for r in requirements if not r.check and not r.excluded])


def emitted_check_ids() -> set[str]:
    """Every check id a scenario of the suite emits: server and host vectors, and the client-mode scenarios."""
    from .client_scenarios import client_mode_scenarios
    from .rules import rule_ids
    from .runner import all_vectors

    return rule_ids([*all_vectors(), *client_mode_scenarios()])


def coverage(sep_text: str | None = None, path: Path = YAML_PATH) -> Coverage:
    """The traceability coverage of sep-3279.yaml against SEP-3279 (read from ../shared unless given).

    `coverage().numbers()` gives sentences, mapped, excluded, unmapped and dangling, e.g. for a report.
    """
    text = sep_text if sep_text is not None else find_sep_text().read_text()
    _, requirements = load_requirements(path)
    return measure(text, requirements, emitted_check_ids())
