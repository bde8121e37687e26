"""stdio's line framing (sdk/_lines.py): lines of at most `limit` bytes, in bounded memory (issue 13)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcp_variants.sdk._lines import LineFramer, Oversized
from support.oracles import PROPERTY


def frame(chunks: list[bytes], limit: int = 10, keep: int = 4) -> list[bytes | Oversized]:
    framer = LineFramer(limit, keep=keep)
    lines = [line for chunk in chunks for line in framer.feed(chunk)]
    return lines + framer.end()


def test_lines_split_on_newlines_across_chunks() -> None:
    assert frame([b"ab", b"c\nde", b"\n\nf"]) == [b"abc", b"de", b"", b"f"]
    assert frame([b"abc\n"]) == [b"abc"]
    assert frame([]) == []


def test_a_long_line_is_reported_with_its_first_bytes_and_its_size_and_the_next_line_is_kept() -> None:
    assert frame([b"0123456789", b"ABCDEF", b"GH\nok\n"]) == [Oversized(b"0123", 18), b"ok"]
    assert frame([b"0123456789A\nok"]) == [Oversized(b"0123", 11), b"ok"]
    assert frame([b"0123456789"]) == [b"0123456789"]  # exactly the limit is allowed


def test_memory_stays_bounded_while_a_huge_line_arrives() -> None:
    framer = LineFramer(1000, keep=100)
    for _ in range(10_000):  # 10 MB in 1 KB chunks, no newline
        assert framer.feed(b"x" * 1024) == []
        assert sum(len(part) for part in framer._parts) <= 1000
    assert framer.feed(b"\n") == [Oversized(b"x" * 100, 10_240_000)]


@PROPERTY
@given(lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=8),
       cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=10))
def test_any_chunking_gives_the_same_lines(lines: list[bytes], cuts: list[int]) -> None:
    """However the bytes are cut into chunks, the same lines come out: the short ones whole, the long ones
    as Oversized with their first bytes and size."""
    stream = b"".join(line + b"\n" for line in lines)
    points = sorted({0, len(stream), *(c for c in cuts if c < len(stream))})
    chunks = [stream[a:b] for a, b in zip(points, points[1:], strict=False)]
    expected = [line if len(line) <= 10 else Oversized(line[:4], len(line)) for line in lines]
    assert frame(chunks) == expected
