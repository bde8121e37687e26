"""A small, strict subset of JSONPath (RFC 9535), enough for the golden vectors.

The vectors are language-neutral, so their paths use a standard any language has a
library for; this module implements only the part the vectors use, and refuses the rest
with a clear error rather than guessing:

* roots: `$` (the document) and `@` (the current node, in filters and `every` checks);
* segments: `.name`, `['name']` / `["name"]` (names with `/`, `.` or `-`), `[0]`, `[-1]`,
  `[*]`, `.*`;
* filters `[?expr]` over an array's elements or an object's member values, where `expr`
  is made of `||`, `&&`, `!`, parentheses, existence tests (`@.schema`) and comparisons
  `==`, `!=` between singular queries and literals (strings, numbers, true, false, null).

As in RFC 9535, a query that selects nothing compares equal only to another empty query,
and `!=` is the negation of `==`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["JsonPathError", "collection", "compile_path", "query"]


class JsonPathError(ValueError):
    """A path outside the supported subset, or malformed."""


_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT: Final = re.compile(r"-?(0|[1-9][0-9]*)")
_NUMBER: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_NOTHING: Final = object()

Node = Any
Selector = Callable[[Node, Node, Node], list[Node]]  # (node, root, current) -> children


@dataclass(frozen=True)
class Segment:
    select: Selector
    branching: bool  # a wildcard or a filter: it may select none of what is there
    end: int  # where it ends in the path's text


@dataclass(frozen=True)
class Path:
    text: str
    relative: bool
    segments: tuple[Segment, ...]

    def select(self, root: Any, current: Any = None) -> list[Any]:
        nodes = [current if self.relative else root]
        for segment in self.segments:
            nodes = [child for node in nodes for child in segment.select(node, root, current)]
        return nodes

    def collection(self) -> Path:
        """The path up to its last wildcard or filter (else its parent): what it ranges over. When that
        selects something, an empty selection means "none there"; when not, nothing was there to look at."""
        branches = [i for i, s in enumerate(self.segments) if s.branching]
        keep = branches[-1] if branches else max(len(self.segments) - 1, 0)
        end = self.segments[keep - 1].end if keep else 1
        return Path(self.text[:end], self.relative, self.segments[:keep])


def _children(node: Any) -> list[Any]:
    if isinstance(node, list):
        return list(node)
    if isinstance(node, dict):
        return list(node.values())
    return []


def _member(name: str) -> Selector:
    def select(node: Any, root: Any, current: Any) -> list[Any]:
        return [node[name]] if isinstance(node, dict) and name in node else []

    return select


def _index(i: int) -> Selector:
    def select(node: Any, root: Any, current: Any) -> list[Any]:
        if isinstance(node, list) and -len(node) <= i < len(node):
            return [node[i]]
        return []

    return select


def _wildcard(node: Any, root: Any, current: Any) -> list[Any]:
    return _children(node)


def _constant(value: Any) -> Callable[[Any, Any], Any]:
    """An operand that is `value` whatever the node."""
    return lambda node, root: value


def _filter(predicate: Callable[[Any, Any], bool]) -> Selector:
    def select(node: Any, root: Any, current: Any) -> list[Any]:
        return [child for child in _children(node) if predicate(child, root)]

    return select


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> JsonPathError:
        return JsonPathError(f"{message} at offset {self.pos} in {self.text!r}")

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def expect(self, token: str) -> None:
        self.skip_ws()
        if not self.peek(token):
            raise self.fail(f"expected {token!r}")
        self.pos += len(token)

    # query := ('$' | '@') segment*
    def query(self) -> Path:
        start = self.pos
        if self.peek("$"):
            relative = False
        elif self.peek("@"):
            relative = True
        else:
            raise self.fail("a path starts with $ or @")
        self.pos += 1
        segments: list[Segment] = []
        selector: Selector
        while self.pos < len(self.text):
            if self.peek(".."):
                raise self.fail("descendant segments (..) are not in the supported subset")
            if self.peek(".*"):
                self.pos += 2
                selector, branching = _wildcard, True
            elif self.peek("."):
                self.pos += 1
                match = _NAME.match(self.text, self.pos)
                if not match:
                    raise self.fail("expected a member name after '.'")
                self.pos = match.end()
                selector, branching = _member(match.group()), False
            elif self.peek("["):
                self.pos += 1
                selector, branching = self.bracket()
            else:
                break
            segments.append(Segment(selector, branching, self.pos - start))
        return Path(self.text[start:self.pos], relative, tuple(segments))

    def bracket(self) -> tuple[Selector, bool]:
        """A bracketed selector, and whether it branches (a wildcard or a filter)."""
        self.skip_ws()
        branching = self.peek("*") or self.peek("?")
        if self.peek("*"):
            self.pos += 1
            selector: Selector = _wildcard
        elif self.peek("?"):
            self.pos += 1
            selector = _filter(self.logical_or())
        elif self.peek("'") or self.peek('"'):
            selector = _member(self.string())
        else:
            match = _INT.match(self.text, self.pos)
            if not match:
                raise self.fail("expected *, ?filter, a quoted name or an index")
            self.pos = match.end()
            selector = _index(int(match.group()))
        self.expect("]")
        return selector, branching

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\":
                self.pos += 1
                if self.pos >= len(self.text):
                    break
                escaped = self.text[self.pos]
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}.get(escaped, escaped))
                self.pos += 1
                continue
            if char == quote:
                self.pos += 1
                return "".join(out)
            out.append(char)
            self.pos += 1
        raise self.fail("unterminated string")

    # Filter expressions return predicate(current, root) -> bool.
    def logical_or(self) -> Callable[[Any, Any], bool]:
        terms = [self.logical_and()]
        while True:
            self.skip_ws()
            if not self.peek("||"):
                break
            self.pos += 2
            terms.append(self.logical_and())
        if len(terms) == 1:
            return terms[0]
        return lambda node, root: any(t(node, root) for t in terms)

    def logical_and(self) -> Callable[[Any, Any], bool]:
        terms = [self.unary()]
        while True:
            self.skip_ws()
            if not self.peek("&&"):
                break
            self.pos += 2
            terms.append(self.unary())
        if len(terms) == 1:
            return terms[0]
        return lambda node, root: all(t(node, root) for t in terms)

    def unary(self) -> Callable[[Any, Any], bool]:
        self.skip_ws()
        if self.peek("!") and not self.peek("!="):
            self.pos += 1
            inner = self.unary()
            return lambda node, root: not inner(node, root)
        if self.peek("("):
            self.pos += 1
            inner = self.logical_or()
            self.expect(")")
            return inner
        left = self.operand()
        self.skip_ws()
        for op in ("==", "!="):
            if self.peek(op):
                self.pos += 2
                right = self.operand()
                if op == "==":
                    return lambda node, root: _equal(left(node, root), right(node, root))
                return lambda node, root: not _equal(left(node, root), right(node, root))
        for op in ("<=", ">=", "<", ">"):
            if self.peek(op):
                raise self.fail(f"the comparison {op} is not in the supported subset")
        if not isinstance(left, _QueryOperand):
            raise self.fail("a literal alone is not a test")
        return lambda node, root: bool(left.nodes(node, root))

    def operand(self) -> Callable[[Any, Any], Any]:
        self.skip_ws()
        if self.peek("@") or self.peek("$"):
            return _QueryOperand(self.query())
        if self.peek("'") or self.peek('"'):
            return _constant(self.string())
        for word, constant in (("true", True), ("false", False), ("null", None)):
            if self.peek(word):
                self.pos += len(word)
                return _constant(constant)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return _constant(json.loads(match.group()))
        raise self.fail("expected a query or a literal")


class _QueryOperand:
    """A query inside a filter: existence test, or a singular value in a comparison."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def nodes(self, current: Any, root: Any) -> list[Any]:
        return self.path.select(root, current)

    def __call__(self, current: Any, root: Any) -> Any:
        found = self.nodes(current, root)
        return found[0] if len(found) == 1 else _NOTHING


def _equal(a: Any, b: Any) -> bool:
    if a is _NOTHING or b is _NOTHING:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


_CACHE: dict[str, Path] = {}


def compile_path(text: str) -> Path:
    """Parse once; JsonPathError when `text` is outside the subset."""
    path = _CACHE.get(text)
    if path is None:
        parser = _Parser(text)
        path = parser.query()
        parser.skip_ws()
        if parser.pos != len(text):
            raise parser.fail("unexpected text")
        _CACHE[text] = path
    return path


def query(text: str, root: Any, current: Any = None) -> list[Any]:
    """Every node `text` selects in `root` (`@` is `current`)."""
    return compile_path(text).select(root, current)


def collection(text: str) -> str:
    """The text of the path `text` ranges over (Path.collection): `$.a.tools[*].v[?@.x]` -> `$.a.tools[*].v`."""
    return compile_path(text).collection().text
