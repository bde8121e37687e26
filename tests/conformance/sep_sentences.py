"""The development side of traceability: SEP-3279's normative sentences, read from the SEP's text.

The text is the project's copy beside the repository (`../shared/seeds/`, as in this workspace and
its CI), or the file $MCP_VARIANTS_SEP_TEXT names; the package ships neither, so where neither is
there the tests that need it skip. The shipped measure (`conformance.traceability.coverage`) takes
sep-3279.yaml and the suite alone.

The text is a rendering that lost its markup: inline code is glued to the next word
("hasisError"), list items run together ("context.programmaticoutputs are") and lines break
inside sentences. So sentences are split with care (`sentences`): those with a BCP 14 keyword in
capitals (MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, SHOULD, SHOULD NOT, RECOMMENDED) in the
Specification section. A requirement's `text` matches when, ignoring whitespace and `[...]`
insertions, it is a verbatim quote; a sentence is covered when each of its keywords lies inside
some requirement's quote.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from mcp_variants.conformance.traceability import Requirement

REPO = Path(__file__).resolve().parents[2]
SEP_TEXT_ENV: Final = "MCP_VARIANTS_SEP_TEXT"
SEP_TEXT: Final = REPO.parent / "shared" / "seeds" / "004_51787d210828baf3.txt"  # the project's copy of SEP-3279
KEYWORDS: Final = re.compile(r"\b(?:MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|RECOMMENDED)\b")
BOILERPLATE: Final = "are to be interpreted as described in BCP 14"  # the key-words sentence defines, it does not require
_SQUASH: Final = re.compile(r"[\s`]+")
_INSERTION: Final = re.compile(r"\[[^\]]*\]")


def sep_text_path() -> Path | None:
    """$MCP_VARIANTS_SEP_TEXT, else the copy beside the repository; None when there is neither."""
    explicit = os.environ.get(SEP_TEXT_ENV)
    path = Path(explicit) if explicit else SEP_TEXT
    return path if path.is_file() else None


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


def quote(requirement: Requirement) -> str:
    """A row's text as it must appear in the SEP: `[...]` insertions removed, whitespace ignored."""
    return squash(_INSERTION.sub("", requirement.text))


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


@dataclass
class SentenceCoverage:
    """How sep-3279.yaml's rows cover the SEP's normative sentences."""

    sentences: int
    mapped: int  # covered by a requirement with a check id
    excluded: int  # covered by excluded requirements only
    unmapped: list[str] = field(default_factory=list)  # sentences with a keyword no requirement quotes
    misquoted: list[str] = field(default_factory=list)  # requirement texts that are not quotes of the section

    def numbers(self) -> dict[str, int]:
        return {"sentences": self.sentences, "mapped": self.mapped, "excluded": self.excluded, "unmapped": len(self.unmapped),
                "misquoted": len(self.misquoted)}


def measure(sep_text: str, requirements: Sequence[Requirement]) -> SentenceCoverage:
    section = specification_section(sep_text)
    flat = squash(section)
    spans: list[tuple[int, int, Requirement]] = []
    misquoted: list[str] = []
    for req in requirements:
        at = flat.find(quote(req)) if quote(req) else -1
        if at < 0:
            misquoted.append(req.text)
        else:
            spans.append((at, at + len(quote(req)), req))
    found = sentences(section)
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
    return SentenceCoverage(sentences=len(found), mapped=mapped, excluded=excluded, unmapped=unmapped, misquoted=misquoted)
