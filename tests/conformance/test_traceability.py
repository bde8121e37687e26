"""sep-3279.yaml, in the official suite's format: every check id is one a scenario emits and every
id a scenario emits has a row (what the product measures, from the file and the suite alone); and,
as a development check against the SEP's text, every normative sentence of its Specification
section has a row that quotes it.

The SEP's text is read from ../shared/seeds/ beside the repository, or from $MCP_VARIANTS_SEP_TEXT
(tests/conformance/sep_sentences.py); where neither is there, the tests that need it skip. The
official `conformance traceability --strict` runs over real results in
tests/outside/test_official_traceability.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from mcp_variants.conformance import traceability
from mcp_variants.conformance.client_scenarios import client_mode_scenarios, scenario_rules
from mcp_variants.conformance.rules import rule_ids
from mcp_variants.conformance.runner import all_vectors
from mcp_variants.conformance.scorecards import scenario_checks
from mcp_variants.conformance.traceability import Requirement, trace

from . import sep_sentences
from .sep_sentences import measure, normative_sentences, sentences

OFFICIAL_ROW_KEYS = {"check", "text", "excluded", "url", "issue"}


@pytest.fixture(scope="module")
def sep_text() -> str:
    path = sep_sentences.sep_text_path()
    if path is None:
        pytest.skip(f"SEP-3279's text is not here ({sep_sentences.SEP_TEXT}, or a file named by ${sep_sentences.SEP_TEXT_ENV}): "
                    "the sentence check is a development check; sep-3279.yaml against the suite is tested without it")
    return path.read_text()


def test_every_check_id_is_emitted_and_every_emitted_id_has_a_row() -> None:
    """What the report and `check` rest on: the file and the suite, nothing else."""
    coverage = traceability.coverage()
    assert not coverage.untested, f"check ids no scenario emits: {coverage.untested}"
    assert not coverage.untracked, f"check ids scenarios emit that sep-3279.yaml does not declare: {coverage.untracked}"
    assert not coverage.unkeyed, f"entries with neither check nor excluded: {coverage.unkeyed}"
    numbers = coverage.numbers()
    assert numbers["requirements"] == numbers["tested"] + numbers["excluded"] > 50 and coverage.ok, numbers


def test_every_normative_sentence_has_an_entry_that_quotes_it(sep_text: str) -> None:
    _, requirements = traceability.load_requirements()
    coverage = measure(sep_text, requirements)
    assert not coverage.unmapped, "sentences without an entry in sep-3279.yaml:\n" + "\n".join(coverage.unmapped)
    assert not coverage.misquoted, "entries that are not quotes of the Specification section:\n" + "\n".join(coverage.misquoted)
    numbers = coverage.numbers()
    assert numbers["sentences"] == numbers["mapped"] + numbers["excluded"] > 50, numbers


def test_the_file_is_in_the_official_format() -> None:
    """What `conformance new-sep` writes and `conformance traceability` reads: sep, spec_url, requirements."""
    doc = yaml.safe_load(traceability.YAML_PATH.read_text())
    assert set(doc) == {"sep", "spec_url", "requirements"} and doc["sep"] == 3279
    assert traceability.YAML_PATH.name == f"sep-{doc['sep']}.yaml"
    for row in doc["requirements"]:
        assert set(row) <= OFFICIAL_ROW_KEYS and isinstance(row["text"], str), row
        assert ("check" in row) != ("excluded" in row), f"exactly one of check / excluded: {row}"
        if "check" in row:
            assert re.fullmatch(r"sep-3279-[a-z0-9-]+", row["check"]), row["check"]
        else:
            assert row["excluded"].strip(), row


def test_the_emitted_ids_are_the_ids_in_the_results() -> None:
    """What the static check counts as emitted is what checks.json files carry (the official tool reads those)."""
    from_results: set[str] = set()
    for vector in [*all_vectors(), *client_mode_scenarios()]:
        client_mode = vector["kind"] == "client-mode"
        result = {"id": vector["id"], "kind": vector["kind"], "status": "pass",
                  "rules": scenario_rules(vector) if client_mode else vector["rules"],
                  "checkIds": {c["check"]: "pass" for c in vector["checks"]} if client_mode else {}}
        from_results |= {c["id"] for c in scenario_checks(result, "t") if c["id"].startswith("sep-3279-")}
    assert from_results == rule_ids([*all_vectors(), *client_mode_scenarios()])


def test_sentences_survive_the_lost_markup(sep_text: str) -> None:
    found = [s.text for s in normative_sentences(sep_text)]
    # List items glued to the next one ("context.programmaticoutputs are ..."), split apart:
    assert "The host MUST NOT automatically add either format to model context." in found
    assert "The host MUST NOT automatically add them to model context or render them to the user." in found
    # A line broken where inline code stood ("Every tool MUST declare an\nassistant/contentvariant."), joined:
    assert any(s.startswith("Every tool MUST declare an assistant/content") for s in found)
    # The key-words boilerplate defines; it is not a requirement:
    assert not any("BCP 14" in s for s in found)
    assert sum(len(s.keywords) for s in normative_sentences(sep_text)) == len(re.findall(
        r"\b(?:MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|RECOMMENDED)\b",
        sep_sentences.specification_section(sep_text))) - 8  # the boilerplate names 8 keywords


SECTION = """Intro
Specification
Things
- A server MUST do one thing. - A client SHOULD do
another thing.The host MUST NOT do a third.useroutputs are fine. They MUST NOT do a fourth.
Rationale
Nothing MUST be here.
"""


def test_the_extractor_on_a_small_text() -> None:
    assert [s.text for s in sentences(SECTION.split("Specification\n")[1].split("Rationale")[0])] == [
        "A server MUST do one thing.", "A client SHOULD do another thing.The host MUST NOT do a third.", "They MUST NOT do a fourth."]


def test_the_check_can_fail() -> None:
    rows = [Requirement("A server MUST do one thing.", check="sep-3279-one"),
            Requirement("[the client:] A client SHOULD do another thing.", excluded="not observable"),
            Requirement("A sentence the SEP does not contain.", check="sep-3279-two"),
            Requirement("They MUST NOT do a fourth.")]
    result = measure(SECTION, rows)
    assert result.unmapped == ["A client SHOULD do another thing.The host MUST NOT do a third."]  # one of its two keywords unquoted
    assert result.misquoted == ["A sentence the SEP does not contain."]
    assert result.numbers() == {"sentences": 3, "mapped": 1, "excluded": 1, "unmapped": 1, "misquoted": 1}
    traced = trace(rows, emitted={"sep-3279-one", "sep-3279-three", "sep-2549-other"})
    assert traced.untested == ["sep-3279-two"] and traced.untracked == ["sep-3279-three"]
    assert traced.unkeyed == ["They MUST NOT do a fourth."]
    assert traced.numbers() == {"requirements": 4, "tested": 1, "excluded": 1, "untested": 1, "untracked": 1, "unkeyed": 1}
    assert not traced.ok


def test_the_sep_is_found_beside_the_repository_or_by_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sep_sentences.SEP_TEXT_ENV, raising=False)
    assert sep_sentences.REPO.parent / "shared" / "seeds" / sep_sentences.SEP_TEXT.name == sep_sentences.SEP_TEXT
    assert sep_sentences.sep_text_path() == (sep_sentences.SEP_TEXT if sep_sentences.SEP_TEXT.is_file() else None)
    elsewhere = tmp_path / "sep-3279.txt"
    monkeypatch.setenv(sep_sentences.SEP_TEXT_ENV, str(elsewhere))
    assert sep_sentences.sep_text_path() is None  # named, but not there
    elsewhere.write_text("x")
    assert sep_sentences.sep_text_path() == elsewhere


def test_the_product_names_no_copy_of_the_sep() -> None:
    """Nothing the package ships looks for the SEP's text: a stranger's install has none."""
    src = sep_sentences.REPO / "src"
    named = [str(p.relative_to(src)) for p in src.rglob("*") if p.is_file() and p.suffix in {".py", ".yaml", ".json", ".md", ".html", ".js"}
             and any(word in p.read_text(errors="replace") for word in ("shared/seeds", sep_sentences.SEP_TEXT.name))]
    assert not named, named
