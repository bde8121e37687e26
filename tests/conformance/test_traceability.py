"""sep-3279.yaml covers every normative sentence of SEP-3279's Specification section, in the
official suite's format, with no sentence unmapped and no check id that no scenario emits.

The SEP is read from ../shared/seeds/ (beside the repository, as in CI), or from
$MCP_VARIANTS_SEP_TEXT. The official `conformance traceability --strict` runs over real
results in tests/outside/test_official_traceability.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from mcp_variants.conformance import traceability
from mcp_variants.conformance.client_scenarios import client_mode_scenarios, scenario_rules
from mcp_variants.conformance.results import scenario_checks
from mcp_variants.conformance.rules import rule_ids
from mcp_variants.conformance.runner import all_vectors
from mcp_variants.conformance.traceability import Requirement, find_sep_text, measure, normative_sentences, sentences

OFFICIAL_ROW_KEYS = {"check", "text", "excluded", "url", "issue"}


@pytest.fixture(scope="module")
def sep_text() -> str:
    return find_sep_text().read_text()


def test_every_normative_sentence_has_an_entry_and_every_check_id_is_emitted(sep_text: str) -> None:
    coverage = traceability.coverage(sep_text)
    assert not coverage.unmapped, "sentences without an entry in sep-3279.yaml:\n" + "\n".join(coverage.unmapped)
    assert not coverage.dangling, f"check ids no scenario emits: {coverage.dangling}"
    assert not coverage.untracked, f"check ids scenarios emit that sep-3279.yaml does not declare: {coverage.untracked}"
    assert not coverage.misquoted, "entries that are not quotes of the Specification section:\n" + "\n".join(coverage.misquoted)
    assert not coverage.unkeyed, f"entries with neither check nor excluded: {coverage.unkeyed}"
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
        traceability.specification_section(sep_text))) - 8  # the boilerplate names 8 keywords


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
    result = measure(SECTION, rows, emitted={"sep-3279-one", "sep-3279-three", "sep-2549-other"})
    assert result.unmapped == ["A client SHOULD do another thing.The host MUST NOT do a third."]  # one of its two keywords unquoted
    assert result.misquoted == ["A sentence the SEP does not contain."]
    assert result.dangling == ["sep-3279-two"] and result.untracked == ["sep-3279-three"]
    assert result.unkeyed == ["They MUST NOT do a fourth."]
    assert result.numbers() == {"sentences": 3, "mapped": 1, "excluded": 1, "unmapped": 1, "dangling": 1} and not result.ok


def test_the_sep_is_found_beside_the_repository_or_by_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = tmp_path / "shared" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / traceability.SEP_TEXT_NAME).write_text("x")
    repo = tmp_path / "wt" / "clone" / "src" / "mcp_variants" / "conformance" / "traceability.py"
    monkeypatch.delenv(traceability.SEP_TEXT_ENV, raising=False)
    assert find_sep_text(repo) == seeds / traceability.SEP_TEXT_NAME
    monkeypatch.setenv(traceability.SEP_TEXT_ENV, str(tmp_path / "elsewhere.txt"))
    assert find_sep_text(repo) == tmp_path / "elsewhere.txt"
