"""Property tests on mangled input for every leaderboard parser.

For any bytes (random, or a valid-looking table truncated, re-delimited,
with fields dropped or added, junk and huge numbers spliced in) a parser
either raises :class:`ParseError` or returns rows; no other exception.

Invariant tested for the wide (CSV) formats whenever they accept a file:
``rows == data records x value columns`` (a paired column counts twice),
where the records are counted independently by Python's csv module, and
the non-missing cells of every one-number column come out as values,
stripped but otherwise unchanged (nothing dropped, nothing coerced).
For GEM: rows == the scalar leaves of the JSON minus ``submission_name``
and ``*_file`` paths.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.transforms.strategies_leaderboard import csv_text, json_objects, mangled, reference_records, tables, written
from scorehouse.transforms.parsers import gem_scores, leaderboard_rankingnlp, leaderboard_value, leaderboard_votenrank
from scorehouse.transforms.parsers import leaderboard_wide
from scorehouse.transforms.parsers.base import Parsed, ParseError
from scorehouse.transforms.parsers.leaderboard_columns import GLUE, SUPERGLUE, XTREME

SETTINGS = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])

VNR_GLUE_HEADER = ["Rank", "Name", "Model", "URL"] + [t.task for t in GLUE]
VNR_GLUE_PAIRED = frozenset(4 + i for i, t in enumerate(GLUE) if len(t.metrics) == 2)
RNLP_HEADER = {
    "glue": ["Model"] + [c for t in GLUE for c in t.split_columns],
    "superglue": ["Model"] + [c for t in SUPERGLUE for c in t.split_columns],
    "xtreme": ["Model"] + [c for t in XTREME for c in t.split_columns],
}
VALUE_HEADER = list(leaderboard_value.HEADER)

# Unicode White_Space, what the parsers strip (Python's str.strip also strips
# the ASCII separators \x1c-\x1f, which are not whitespace in Unicode).
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def run(parse, name: str, data: bytes, benchmark: str | None = None) -> Parsed | None:
    """The parser's result, or None when it raised ParseError (anything else fails the test)."""
    with written(name, data) as path:
        try:
            return parse(path, benchmark)
        except ParseError as err:
            assert err.file == str(path)
            return None


def check_no_cell_lost(parsed: Parsed, data: bytes, *, value_columns: list[int], paired: frozenset[int],
                       system_column: int) -> None:
    records = reference_records(data)
    header, body = records[0], records[1:]
    width = sum(2 if i in paired else 1 for i in value_columns)
    assert parsed.rows.height == len(body) * width
    assert parsed.rows["line"].null_count() == 0
    single = [i for i in value_columns if i not in paired]
    expected = Counter(
        r[i].strip(WHITE_SPACE) for r in body for i in single if r[i].strip(WHITE_SPACE) not in ("-", "")
    )
    singles = parsed.rows.filter(~parsed.rows["task"].is_in([header[i].strip() for i in paired]))
    assert Counter(v for v in singles["value"] if v is not None) == expected
    assert parsed.rows["system"].drop_nulls().n_unique() == parsed.rows["system"].drop_nulls().len() // width


@SETTINGS
@given(st.data())
def test_votenrank_mangled(data):
    text = data.draw(tables(VNR_GLUE_HEADER, paired=VNR_GLUE_PAIRED, system_column=2))
    raw = data.draw(mangled(text))
    parsed = run(leaderboard_votenrank.parse, "leaderboards - GLUE.csv", raw)
    if parsed is not None:
        check_no_cell_lost(parsed, raw, value_columns=list(range(4, len(VNR_GLUE_HEADER))),
                           paired=VNR_GLUE_PAIRED, system_column=2)


@SETTINGS
@given(st.data(), st.sampled_from(sorted(RNLP_HEADER)), st.booleans())
def test_rankingnlp_mangled(data, family, polluted):
    header = RNLP_HEADER[family]
    if polluted:  # the scrapes' tabs and spaces around names
        header = [f"\t{name} " for name in header]
    text = data.draw(tables(header))
    raw = data.draw(mangled(text))
    parsed = run(leaderboard_rankingnlp.parse, f"{family}.data", raw)
    if parsed is None:
        return
    if any(p.startswith("every data row has") for p in parsed.problems):
        # the repaired xtrem.data defect: every record had one blank field too many
        records = reference_records(raw)
        assert all(len(r) == len(header) + 1 and not r[1].strip(WHITE_SPACE) for r in records[1:])
        assert parsed.rows.height == (len(records) - 1) * (len(header) - 1)
    else:
        check_no_cell_lost(parsed, raw, value_columns=list(range(1, len(header))), paired=frozenset(),
                           system_column=0)


@SETTINGS
@given(st.data())
def test_xtreme_shift_repair_keeps_every_score(data):
    header = RNLP_HEADER["xtreme"]
    records = reference_records(data.draw(tables(header)).encode())
    # the xtrem.data defect: a blank field after the name on every data row
    shifted = csv_text(records[0], [r[:1] + [" \t"] + r[1:] for r in records[1:]])
    clean = run(leaderboard_rankingnlp.parse, "xtrem.csv", csv_text(records[0], records[1:]).encode())
    broken = run(leaderboard_rankingnlp.parse, "xtrem.data", shifted.encode())
    assert (clean is None) == (broken is None)
    if clean is not None:
        assert broken.rows.equals(clean.rows)
        assert len(broken.problems) == len(clean.problems) + 1


@SETTINGS
@given(st.data())
def test_value_mangled(data):
    raw = data.draw(mangled(data.draw(tables(VALUE_HEADER))))
    parsed = run(leaderboard_value.parse, "leaderboards - VALUE.csv", raw)
    if parsed is not None:
        check_no_cell_lost(parsed, raw, value_columns=list(range(1, len(VALUE_HEADER))), paired=frozenset(),
                           system_column=0)


column_names = st.lists(st.text(min_size=1, max_size=8).map(str.strip).filter(bool), min_size=1, max_size=6,
                        unique=True)


@SETTINGS
@given(st.data(), column_names, st.sampled_from(["glue_hpc.csv", "experiment_tracker_table.csv", "gem.csv"]))
def test_wide_mangled(data, columns, name):
    header = [leaderboard_wide.KNOWN_FILES[name].system_column] + columns
    raw = data.draw(mangled(data.draw(tables(header))))
    parsed = run(leaderboard_wide.parse, name, raw)
    if parsed is not None:
        check_no_cell_lost(parsed, raw, value_columns=list(range(1, len(reference_records(raw)[0]))),
                           paired=frozenset(), system_column=0)


@SETTINGS
@given(st.binary(max_size=300), st.sampled_from(["a.csv", "glue_hpc.csv", "x.data", "s.scores.json"]))
def test_random_bytes_never_crash(raw, name):
    for parse in (leaderboard_votenrank.parse, leaderboard_rankingnlp.parse, leaderboard_value.parse,
                  leaderboard_wide.parse, gem_scores.parse):
        run(parse, name, raw, benchmark="b")


def scalar_leaves(obj: object, key: str = "") -> list[str]:
    """Last keys of the scalar leaves of a JSON value (reference count)."""
    if isinstance(obj, dict):
        return [leaf for k, v in obj.items() for leaf in scalar_leaves(v, k)]
    return [key]


def has_array(obj: object) -> bool:
    return isinstance(obj, list) or (isinstance(obj, dict) and any(has_array(v) for v in obj.values()))


@SETTINGS
@given(st.dictionaries(st.text(max_size=6), json_objects, max_size=5), st.text(min_size=1, max_size=5),
       st.sampled_from([None, 2, 4]), st.data())
def test_gem_json_mangled(doc, name, indent, data):
    doc = {"submission_name": name, **{k: v for k, v in doc.items() if k != "submission_name"}}
    text = json.dumps(doc, indent=indent)
    parsed = run(gem_scores.parse, "s.scores.json", text.encode())
    if has_array(doc) or not name.strip():
        assert parsed is None
    else:
        assert parsed is not None
        leaves = [k for k in scalar_leaves(doc) if not k.endswith("_file")]
        assert parsed.rows.height == len(leaves) - 1  # submission_name is the system, not a row
    run(gem_scores.parse, "s.scores.json", data.draw(mangled(text)))


def test_property_helpers_see_the_real_glue_file():
    """The reference record count agrees with the real file (100 systems)."""
    path = Path(__file__).resolve().parents[2] / "data/bundled/vote_and_rank/tables/leaderboards - GLUE.csv"
    assert len(reference_records(path.read_bytes())) == 101
