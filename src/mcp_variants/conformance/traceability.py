"""Traceability: SEP-3279's normative sentences mapped to the check ids our scenarios emit (or
to an exclusion that says why a sentence cannot be observed).

`sep-3279.yaml` (next to this module) is in the official suite's format
(@modelcontextprotocol/conformance `new-sep` / `traceability`):

    sep: 3279
    spec_url: ...
    requirements:
      - check: sep-3279-client-no-duplicate-selector
        text: 'The client MUST NOT include the same selector more than once in requestedOutputs.'
      - text: '...'
        excluded: 'why it cannot be observed'

`coverage()` measures the file against the suite, with nothing but the two: how many rows a
scenario checks, how many are excluded, and the check ids on one side only (a row's id that no
scenario emits, an id a scenario emits that no row declares), as the official `traceability`
command counts them over real results. That every normative sentence of the SEP has a row is a
development check against the SEP's text (tests/conformance/test_traceability.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

SEP_NUMBER: Final = 3279
YAML_PATH: Final = Path(__file__).resolve().parent / "sep-3279.yaml"


@dataclass(frozen=True)
class Requirement:
    text: str  # a quote of the SEP; `[...]` is an editorial insertion
    check: str | None = None
    excluded: str | None = None
    url: str | None = None


def load_requirements(path: Path = YAML_PATH) -> tuple[dict[str, Any], list[Requirement]]:
    doc = yaml.safe_load(path.read_text())
    rows = [Requirement(text=r.get("text", ""), check=r.get("check"), excluded=r.get("excluded"), url=r.get("url"))
            for r in doc.get("requirements") or []]
    return doc, rows


@dataclass
class Coverage:
    """How sep-3279.yaml and the suite match. Every list holds what a test or a report names."""

    requirements: int  # rows of the file
    tested: int  # rows whose check id a scenario emits
    excluded: int  # rows excluded, with the reason
    untested: list[str] = field(default_factory=list)  # check ids of the file that no scenario emits
    untracked: list[str] = field(default_factory=list)  # check ids scenarios emit that the file does not declare
    unkeyed: list[str] = field(default_factory=list)  # rows with neither check nor excluded

    @property
    def ok(self) -> bool:
        return not (self.untested or self.untracked or self.unkeyed)

    def numbers(self) -> dict[str, int]:
        """requirements, tested, excluded, untested, untracked, unkeyed: the coverage at a glance."""
        return {"requirements": self.requirements, "tested": self.tested, "excluded": self.excluded,
                "untested": len(self.untested), "untracked": len(self.untracked), "unkeyed": len(self.unkeyed)}


def trace(requirements: Sequence[Requirement], emitted: Iterable[str]) -> Coverage:
    """The rows against the check ids the scenarios emit (other SEPs' ids aside)."""
    emitted = {e for e in emitted if e.startswith(f"sep-{SEP_NUMBER}-")}
    checks = [r.check for r in requirements if r.check]
    return Coverage(
        requirements=len(requirements), tested=sum(check in emitted for check in checks),
        excluded=sum(1 for r in requirements if r.excluded and not r.check),
        untested=sorted(set(checks) - emitted), untracked=sorted(emitted - set(checks)),
        unkeyed=[r.text for r in requirements if not r.check and not r.excluded])


def emitted_check_ids() -> set[str]:
    """Every check id a scenario of the suite emits: server and host vectors, and the client-mode scenarios."""
    from .client_scenarios import client_mode_scenarios
    from .rules import rule_ids
    from .runner import all_vectors

    return rule_ids([*all_vectors(), *client_mode_scenarios()])


def coverage(path: Path = YAML_PATH) -> Coverage:
    """The traceability of sep-3279.yaml against the suite; `coverage().numbers()` for a report."""
    _, requirements = load_requirements(path)
    return trace(requirements, emitted_check_ids())
