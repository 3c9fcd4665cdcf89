"""Shared fixtures and Hypothesis strategies for the parser tests."""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import strategies as st

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "bundled"


def bundled(relative: str) -> Path:
    """A bundled dump by its path inside the original repository folder."""
    path = BUNDLED / relative
    assert path.is_file(), f"missing bundled file {path}"
    return path


@contextmanager
def written(name: str, data: bytes) -> Iterator[Path]:
    """``data`` in a temporary file called ``name`` (Hypothesis examples cannot
    share pytest's function-scoped ``tmp_path``)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


# Cells a scraped leaderboard may hold: plain and huge numbers, missing
# markers, junk, numbers wrapped in the tabs and spaces of the scrapes, and
# text with the characters that break naive CSV handling.
numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
)
junk = st.one_of(
    st.sampled_from(["-", "", " - ", "abc", "NaN", "1e999", "9" * 400, "\t91.2 ", "100.", "n/a", "1/2/3"]),
    st.text(max_size=12),
)
cells = st.one_of(numbers, numbers, junk)
pair_cells = st.one_of(st.tuples(cells, cells).map(lambda t: f"{t[0]}/{t[1]}"), cells)
names = st.one_of(st.sampled_from(["BERT", "BERT", "RefBERT", "RefBERT_1", "", "  ", "a\tb"]), st.text(max_size=10))


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    """``header`` and ``rows`` as CSV text (quoted where a cell needs it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


@st.composite
def tables(draw: st.DrawFn, header: list[str], *, paired: frozenset[int] = frozenset(),
           system_column: int = 0) -> str:
    """A CSV leaderboard with ``header``: random system names, cells and
    paired cells (at the column indexes in ``paired``)."""
    n = draw(st.integers(min_value=0, max_value=6))
    rows = []
    for _ in range(n):
        row = [draw(pair_cells) if i in paired else draw(cells) for i in range(len(header))]
        row[system_column] = draw(names)
        rows.append(row)
    return csv_text(header, rows)


def _truncate(text: str, at: int) -> str:
    return text[: at % (len(text) + 1)]


@st.composite
def mangled(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as bytes, possibly damaged: truncated, another delimiter, a
    field dropped or added, random characters or bytes spliced in."""
    damage: Callable[[str], str] = draw(
        st.sampled_from(
            [
                lambda t: t,
                lambda t: t,
                lambda t: _truncate(t, draw(st.integers(min_value=0))),
                lambda t: t.replace(",", draw(st.sampled_from([";", "\t", "|", " ", ",,"]))),
                lambda t: t.replace(",", "", 1),
                lambda t: t.replace("\n", ",x\n", 1),
                lambda t: t + draw(st.text(max_size=20)),
                lambda t: t.replace('"', "", 1),
            ]
        )
    )
    data = damage(text).encode("utf-8")
    if draw(st.booleans()):
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + draw(st.binary(max_size=8)) + data[at:]
    return data


def reference_records(data: bytes) -> list[list[str]]:
    """The non-blank CSV records of ``data`` by Python's csv module: the
    independent count the parsers' row counts are checked against."""
    text = data.decode("utf-8-sig")
    records = list(csv.reader(io.StringIO(text, newline="")))
    return [r for r in records if any(c.strip() for c in r)]


# Nested JSON-like objects for the GEM parser: dicts of numbers, strings,
# nulls, booleans and (rarely) arrays.
json_scalars = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["-", "", "x", "0.5"]),
    st.none(),
    st.booleans(),
)
json_keys = st.one_of(st.sampled_from(["N", "rouge1", "fmeasure", "predictions_file", "bleu"]), st.text(max_size=6))
json_objects = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.dictionaries(json_keys, children, max_size=4), st.lists(children, max_size=2)),
    max_leaves=20,
)
