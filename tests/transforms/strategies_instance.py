"""Shared fixtures and Hypothesis strategies of the parser tests.

The strategies build a well-formed dump from random cells and then mangle it
the ways real dumps break: a truncated file, a line cut short, a wrong
delimiter, a junk or huge cell, random bytes, an empty file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "bundled"


@pytest.fixture
def bundled() -> Path:
    return BUNDLED


# A cell as dumps write it: numbers in many spellings, junk, missing, huge.
cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["", "-", "NaN", "nan", "1e999", "-0.0", " 0.5", "n/a", "1,5", "0x1p3"]),
    st.text(alphabet=st.characters(blacklist_characters="\t\n\r ,\"", blacklist_categories=("Cs",)), max_size=8),
)
# A name (system, document, ...) without the delimiters of any format.
names = st.text(
    alphabet=st.characters(blacklist_characters="\t\n\r ,\"", blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10
)


@st.composite
def mangled(draw: st.DrawFn, text: str) -> bytes:
    """``text`` encoded, then maybe broken in one of the ways real files break."""
    data = text.encode("utf-8")
    how = draw(st.sampled_from(["none", "truncate", "drop_char", "insert", "swap_delimiter", "bytes", "empty"]))
    if how == "none" or not data:
        return data
    at = draw(st.integers(min_value=0, max_value=len(data)))
    if how == "truncate":
        return data[:at]
    if how == "drop_char":
        return data[:at] + data[at + 1 :]
    if how == "insert":
        junk = draw(st.sampled_from([b"\t", b",", b" ", b"\n", b'"', b"x", b"\r\n", b"\n\n", b"\xff", b"\x00"]))
        return data[:at] + junk + data[at:]
    if how == "swap_delimiter":
        old, new = draw(st.sampled_from([(b"\t", b" "), (b",", b";"), (b" ", b"\t"), (b",", b"\t")]))
        return data.replace(old, new)
    if how == "bytes":
        return draw(st.binary(max_size=200))
    return b""


def tsv_lines(width: int) -> st.SearchStrategy[list[list[str]]]:
    """Rows of ``width`` tab-free fields whose last field is a score cell."""
    return st.lists(st.tuples(*([names] * (width - 1)), cells).map(list), min_size=0, max_size=12)


def rows_or_none(parse, path: Path, benchmark: str | None):
    """The parsed rows, or None after checking that the ParseError names ``path``.

    Any other exception propagates and fails the property.
    """
    from scorehouse.transforms.parsers.base import ParseError

    try:
        return parse(path, benchmark).rows
    except ParseError as exc:
        assert str(path) in str(exc)
        return None
