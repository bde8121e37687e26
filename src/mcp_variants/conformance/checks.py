"""Declarative checks: what a response must satisfy, as data.

A check is a JSON object `{"op": ..., "path": ..., "says": ...}` evaluated against a
*document*. For a server step the document is

    {"request": <JSON-RPC request sent>, "response": <JSON-RPC response>,
     "steps": {<step id>: {"request": ..., "response": ...}, ...}}

and for a client scenario it is the host record described in docs/conformance.md.
`path` (and `otherPath`, `schemaPath`, `in`, `over`) are RFC 9535 JSONPath queries, evaluated by
python-jsonpath in its strict (RFC 9535) mode (docs/choices.md), so that any language's RFC 9535 library replays them alike
(docs/reference/vectors.md). `{{name}}` in any string is a binding (the chosen tool, its arguments...).

Every op, with what it demands of the nodes `path` selects:

| op | passes when |
|---|---|
| exists / absent | at least one node / no node |
| equals `value` | at least one node, and every node equals `value` |
| count `value` | exactly `value` nodes are selected |
| length `value` / minLength `value` | exactly one node, an array/string/object whose length is / is at least `value` |
| oneOf `values` | every node is in `values` (passes when nothing is selected) |
| type `value` | at least one node, each of JSON type `value` (or one of a list of types) |
| sameSelectors `otherPath` | the (audience, format) pairs of the nodes equal, as a multiset, those of `otherPath` |
| uniqueSelectors | no (audience, format) pair occurs twice among the nodes |
| validAgainst `schemaPath` | `schemaPath` selects one 2020-12 schema, all nodes valid under it (`vacuous: true`: or no schema or node) |
| equalsOther `otherPath` | both select exactly one node, and they are equal |
| notInOther `otherPath` | no node equals any node `otherPath` selects |
| containsText / notContainsText `value` | some node's / no node's compact JSON contains the string `value` |
| every `checks` | at least one node, and every node, as the document (`$`) of the nested checks, passes them all (`vacuous`: below) |
| forEach `var`, `in`, `checks` | at least one node of `in`, and for each the nested checks pass with `{{var}}` bound to it |
| forEach `except` | (optional) values of `in` not judged: each is named in the verdict's `exempted`, never skipped silently |
| forEach `hint` | (optional) added to each value's failure, `{{var}}` bound: what to do if the failure is not one |
| anyOf `checks` | at least one nested check passes (no `path`) |

A check may carry `fix`: what an implementation that fails it should do, said after the failure's detail
(a rule whose failure alone does not say what to change, e.g. an empty assistant/content).

`every` and `forEach` with `vacuous: true` also pass when nothing is selected, provided the query `over`
(the collection the path ranges over, e.g. `$.response.result.outputs` for
`$.response.result.outputs[?@.format=='content']`) selects something: an error answer never satisfies
a quantifier.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import jsonpath
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

PATH_KEYS: Final = ("path", "otherPath", "schemaPath", "in", "over")  # the keys of a check that hold a JSONPath query
_PLACEHOLDER: Final = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,), "null": (type(None),),
    "integer": (int,), "number": (int, float),
}


class CheckError(ValueError):
    """A check that cannot be evaluated: unknown op, bad path, unbound variable."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    says: str
    detail: str = ""
    exempted: tuple[Any, ...] = ()  # the values a forEach's `except` left unjudged

    def to_json(self) -> dict[str, Any]:
        """For the scorecard: a failure keeps its whole detail, a pass only a short one; the exempted values always."""
        out: dict[str, Any] = {"ok": self.ok, "says": self.says}
        if self.detail and (not self.ok or len(self.detail) <= 160):
            out["detail"] = self.detail
        if self.exempted:
            out["exempted"] = list(self.exempted)
        return out


def short(value: Any, limit: int = 300) -> str:
    """Compact JSON of `value`, cut to `limit` characters."""
    try:
        text = json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"…({len(text)} chars)"


# ---- bindings ---------------------------------------------------------------------------------------


def render(node: Any, bindings: Mapping[str, Any], *, strict: bool = False) -> Any:
    """Substitute `{{name}}` in every string of `node`.

    A string that is exactly one placeholder becomes the bound JSON value; a placeholder
    inside a longer string (a path) becomes the value's text, with quotes escaped for a
    JSONPath string literal. Unbound placeholders stay as they are unless `strict`.
    """
    if isinstance(node, str):
        whole = _PLACEHOLDER.fullmatch(node)
        if whole and whole.group(1) in bindings:
            return bindings[whole.group(1)]

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in bindings:
                if strict:
                    raise CheckError(f"unbound {{{{{name}}}}}")
                return match.group(0)
            value = bindings[name]
            text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            return text.replace("\\", "\\\\").replace("'", "\\'")

        return _PLACEHOLDER.sub(one, node)
    if isinstance(node, list):
        return [render(item, bindings, strict=strict) for item in node]
    if isinstance(node, dict):
        return {key: render(value, bindings, strict=strict) for key, value in node.items()}
    return node


def placeholders(node: Any) -> set[str]:
    """Every `{{name}}` left in `node`."""
    if isinstance(node, str):
        return set(_PLACEHOLDER.findall(node))
    if isinstance(node, list):
        return set().union(*(placeholders(item) for item in node)) if node else set()
    if isinstance(node, dict):
        return set().union(*(placeholders(v) for v in node.values())) if node else set()
    return set()


# ---- evaluation ---------------------------------------------------------------------------------------


# strict: RFC 9535 and nothing more (python-jsonpath's default adds syntax no other language's library reads).
_RFC_9535: Final = jsonpath.JSONPathEnvironment(strict=True)


@functools.lru_cache(maxsize=1024)
def compile_path(text: str) -> jsonpath.JSONPath | jsonpath.CompoundJSONPath:
    """An RFC 9535 query, parsed once; CheckError when `text` is not one."""
    try:
        return _RFC_9535.compile(text)
    except jsonpath.JSONPathError as exc:
        raise CheckError(f"not an RFC 9535 JSONPath query: {text!r}: {str(exc).splitlines()[0]}") from None


def select(path: Any, document: Any) -> list[Any]:
    """The values of the nodes the RFC 9535 query `path` selects in `document`, in order."""
    if not isinstance(path, str):
        raise CheckError(f"a path must be a string, got {short(path)}")
    if _PLACEHOLDER.search(path):
        raise CheckError(f"unbound placeholder in path {path!r}")
    query = compile_path(path)
    if isinstance(document, str):  # python-jsonpath reads a str root as JSON text; here it is a JSON string, with no children
        return [document] if path == "$" else []
    return list(query.findall(document))


def _pairs(nodes: Sequence[Any]) -> list[tuple[Any, Any]] | None:
    if not all(isinstance(n, dict) for n in nodes):
        return None
    return [(n.get("audience"), n.get("format")) for n in nodes]


def _is_type(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def _len(value: Any) -> int | None:
    return len(value) if isinstance(value, (list, str, dict)) else None


def evaluate(check: Mapping[str, Any], document: Any) -> Verdict:
    """One check against `document`: the op's function from the tables below."""
    op = check.get("op")
    says = str(check.get("says") or op)
    if op not in OPS:
        raise CheckError(f"unknown op {op!r}")
    if op in _ON_DOCUMENT:
        verdict = _ON_DOCUMENT[op](check, document, says)
    else:
        verdict = _ON_NODES[op](check, select(check.get("path"), document), document, says)
    fix = check.get("fix")
    if verdict.ok or not fix:
        return verdict
    return Verdict(False, says, f"{verdict.detail}. {fix}" if verdict.detail else str(fix))


# ---- the ops that range over the document itself (no `path`) ----


def _any_of(check: Mapping[str, Any], document: Any, says: str) -> Verdict:
    verdicts = [evaluate(c, document) for c in check.get("checks", [])]
    if any(v.ok for v in verdicts):
        return Verdict(True, says)
    return Verdict(False, says, " / ".join(f"{v.says}: {v.detail}" for v in verdicts))


def _for_each(check: Mapping[str, Any], document: Any, says: str) -> Verdict:
    var = check.get("var")
    if not isinstance(var, str):
        raise CheckError("forEach needs `var`")
    excepted = check.get("except", [])
    if not isinstance(excepted, list):
        raise CheckError(f"forEach `except` must be a list of values (a bound placeholder), got {short(excepted)}")
    selected = select(check.get("in"), document)
    values = [v for v in selected if v not in excepted]
    exempted = tuple(v for v in selected if v in excepted)
    if not values:
        verdict = _over_nothing(check, "in", document, says)
        return Verdict(verdict.ok, says, verdict.detail, exempted) if exempted else verdict
    hint = check.get("hint")
    failures: list[str] = []
    for value in values:
        for nested in check.get("checks", []):
            verdict = evaluate(render(nested, {var: value}), document)
            if not verdict.ok:
                said = f" ({render(hint, {var: value})})" if isinstance(hint, str) else ""  # before the detail, which may be cut
                failures.append(f"[{var}={short(value, 80)}] {verdict.says}{said}: {verdict.detail}")
    if failures:
        return Verdict(False, says, "; ".join(failures[:5]), exempted)
    return Verdict(True, says, f"{len(values)} value(s) of {var}", exempted)


# ---- the ops on the nodes `path` selects ----


def _exists(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    return Verdict(bool(nodes), says, "" if nodes else f"nothing at {check['path']}")


def _absent(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    return Verdict(not nodes, says, "" if not nodes else f"found {short(nodes)}")


def _equals(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    value = check.get("value")
    ok = bool(nodes) and all(n == value and type(n) is type(value) or _num_eq(n, value) for n in nodes)
    return Verdict(ok, says, f"expected {short(value)}, found {short(nodes)}")


def _count(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    value = check.get("value")
    return Verdict(len(nodes) == value, says, f"expected {value} node(s), found {len(nodes)}: {short(nodes)}")


def _length(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    value, exact = check.get("value"), check.get("op") == "length"
    size = _len(nodes[0]) if len(nodes) == 1 else None
    ok = size is not None and isinstance(value, int) and (size == value if exact else size >= value)
    found = short(nodes[0]) if len(nodes) == 1 else f"{len(nodes)} nodes {short(nodes)}"
    return Verdict(ok, says, f"expected length {'' if exact else '>= '}{value}, found {found}")


def _one_of(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    values = check.get("values", [])
    bad = [n for n in nodes if n not in values]
    return Verdict(not bad, says, f"allowed {short(values)}, found {short(bad)}" if bad else "")


def _type(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    value = check.get("value")
    names = [str(n) for n in (value if isinstance(value, list) else [value])]
    ok = bool(nodes) and all(any(t in _TYPES and _is_type(n, t) for t in names) for n in nodes)
    return Verdict(ok, says, f"expected {'/'.join(names)}, found {short(nodes)}")


def _same_selectors(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    mine, theirs = _pairs(nodes), _pairs(select(check.get("otherPath"), document))
    ok = mine is not None and theirs is not None and Counter(mine) == Counter(theirs)
    return Verdict(ok, says, f"expected {short(sorted(map(list, theirs or [])))}, got {short(sorted(map(list, mine or [])))}")


def _unique_selectors(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    mine = _pairs(nodes)
    dupes = [p for p, n in Counter(mine or []).items() if n > 1]
    return Verdict(mine is not None and not dupes, says, f"duplicated {short(dupes)}" if dupes else "")


def _equals_other(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    other = select(check.get("otherPath"), document)
    ok = len(nodes) == 1 and len(other) == 1 and nodes[0] == other[0]
    return Verdict(ok, says, f"found {short(nodes)}; other {short(other)}")


def _not_in_other(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    other = select(check.get("otherPath"), document)
    bad = [n for n in nodes if n in other]
    return Verdict(not bad, says, f"{short(bad)} also at {check.get('otherPath')}" if bad else "")


def _contains_text(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    value = check.get("value")
    hit = any(str(value) in json.dumps(n, separators=(",", ":"), default=str) for n in nodes)
    ok = hit if check.get("op") == "containsText" else not hit
    return Verdict(ok, says, f"{'no' if not hit else 'a'} node contains {value!r}: {short(nodes)}")


def _every(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    if not nodes:
        return _over_nothing(check, "path", document, says)
    failures = []
    for i, node in enumerate(nodes):
        for nested in check.get("checks", []):
            verdict = evaluate(nested, node)
            if not verdict.ok:
                failures.append(f"[#{i} {short(_label(node), 60)}] {verdict.says}: {verdict.detail}")
    if failures:
        return Verdict(False, says, "; ".join(failures[:5]) + (f" (+{len(failures) - 5} more)" if len(failures) > 5 else ""))
    return Verdict(True, says, f"{len(nodes)} node(s)")


def _over_nothing(check: Mapping[str, Any], key: str, document: Any, says: str) -> Verdict:
    """`every` / `forEach` with nothing to range over. False, unless `vacuous: true` and the collection `over`
    names is there: an error answer, or a result without the array, never passes a quantifier."""
    path = check.get(key)
    if not check.get("vacuous"):
        return Verdict(False, says, f"nothing at {path}: nothing was judged")
    where = check.get("over")
    if not isinstance(where, str):
        raise CheckError(f"{check.get('op')} with vacuous: true needs `over`, the query of the collection {path} ranges over")
    if not select(where, document):
        return Verdict(False, says, f"nothing at {where}: no collection to range over")
    return Verdict(True, says, f"no node at {path} (vacuously true)")


def _num_eq(a: Any, b: Any) -> bool:
    return (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
            and not isinstance(b, bool) and a == b)


def _label(node: Any) -> Any:
    if isinstance(node, dict):
        for key in ("name", "audience"):
            if key in node:
                return {key: node[key], **({"format": node["format"]} if "format" in node else {})}
    return node


def _valid_against(check: Mapping[str, Any], nodes: list[Any], document: Any, says: str) -> Verdict:
    schemas = select(check.get("schemaPath"), document)
    vacuous = bool(check.get("vacuous"))
    if not schemas or not nodes:
        missing = "no schema" if not schemas else "no value"
        return Verdict(vacuous, says, f"{missing} to validate" + (" (vacuously true)" if vacuous else ""))
    if len(schemas) > 1:
        return Verdict(False, says, f"{len(schemas)} schemas at {check.get('schemaPath')}; expected one")
    schema = schemas[0]
    if not isinstance(schema, (dict, bool)):
        return Verdict(False, says, f"the schema is not a JSON Schema: {short(schema)}")
    if (error := _schema_error(json.dumps(schema))) is not None:
        return Verdict(False, says, f"the declared schema is not valid JSON Schema 2020-12: {error[:200]}")
    validator = Draft202012Validator(schema)
    problems = []
    for node in nodes:
        for error in sorted(validator.iter_errors(node), key=lambda e: list(e.path))[:3]:
            where = "/".join(map(str, error.path)) or "<root>"
            problems.append(f"{where}: {error.message[:200]}")
    return Verdict(not problems, says, "; ".join(problems[:5]))


_ON_DOCUMENT: Final[dict[str, Callable[[Mapping[str, Any], Any, str], Verdict]]] = {
    "anyOf": _any_of, "forEach": _for_each,
}
_ON_NODES: Final[dict[str, Callable[[Mapping[str, Any], list[Any], Any, str], Verdict]]] = {
    "exists": _exists, "absent": _absent, "equals": _equals, "count": _count,
    "length": _length, "minLength": _length, "oneOf": _one_of, "type": _type, "sameSelectors": _same_selectors,
    "uniqueSelectors": _unique_selectors, "validAgainst": _valid_against, "equalsOther": _equals_other,
    "notInOther": _not_in_other, "containsText": _contains_text, "notContainsText": _contains_text, "every": _every,
}
OPS: Final[frozenset[str]] = frozenset(_ON_DOCUMENT) | frozenset(_ON_NODES)


@functools.lru_cache(maxsize=256)
def _schema_error(text: str) -> str | None:
    """check_schema's message for the schema with this JSON text, or None: a run checks the same few declared
    schemas in scenario after scenario, and the metaschema walk was some 40% of its CPU. Keyed by the text, key
    order kept, so a hit is the very schema and the very error a fresh check would choose."""
    try:
        Draft202012Validator.check_schema(json.loads(text))
    except SchemaError as exc:
        return str(exc.message)
    return None


def validate_check(check: Any, where: str = "check") -> list[str]:
    """Structural problems of a check (unknown op, bad path), for the vector tests."""
    problems: list[str] = []
    if not isinstance(check, dict):
        return [f"{where}: not an object"]
    op = check.get("op")
    if op not in OPS:
        problems.append(f"{where}: unknown op {op!r}")
    if not check.get("says"):
        problems.append(f"{where}: no `says`")
    if "fix" in check and not (isinstance(check["fix"], str) and check["fix"]):
        problems.append(f"{where}: `fix` is a sentence")
    for key in PATH_KEYS:
        text = check.get(key)
        if text is None:
            continue
        try:
            select(_PLACEHOLDER.sub("x", text) if isinstance(text, str) else text, {})
        except CheckError as exc:
            problems.append(f"{where}.{key}: {exc}")
    if op in ("every", "forEach") and check.get("vacuous") and not isinstance(check.get("over"), str):
        problems.append(f"{where}: {op} with vacuous: true needs `over`")
    if op not in ("anyOf", "forEach") and "path" not in check:
        problems.append(f"{where}: op {op} needs `path`")
    for i, nested in enumerate(check.get("checks", []) or []):
        problems += validate_check(nested, f"{where}.checks[{i}]")
    return problems
