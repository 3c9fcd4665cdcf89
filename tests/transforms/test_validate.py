"""Validation at the ingest boundary, against a plain-Python classification of every row."""

import math

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.transforms.validate import reason_counts, validate_rows
from scorehouse.warehouse.schema import PARSED_ROWS

values = st.one_of(
    st.none(),
    st.sampled_from(["1", "1.0", " 2.5 ", "-0", "1e3", "abc", "", "NaN", "inf", "1e999", "-", "0x10"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
rows = st.lists(
    st.tuples(st.sampled_from(["t", "u", ""]), st.sampled_from(["m"]), st.sampled_from([None, "0", "1"]),
              st.sampled_from(["a", "b", " a", ""]), values),
    max_size=25,
)


def as_number(value):
    try:
        return float(value.strip())
    except ValueError:
        return None


def expected_outcome(table):
    """Per row: the quarantine reason's kind, or None when it lands."""
    kinds = []
    for task, _metric, _instance, system, value in table:
        if system.strip() == "":
            kinds.append("empty system")
        elif task == "":
            kinds.append("empty task")
        elif value is not None and as_number(value) is None:
            kinds.append("non-numeric")
        elif value is not None and not math.isfinite(as_number(value)):
            kinds.append("non-finite")
        else:
            kinds.append(None)
    usable = {}
    for i, (task, metric, instance, system, value) in enumerate(table):
        if kinds[i] is None:
            usable.setdefault((task, metric, instance, system.strip()), []).append(i)
    for members in usable.values():
        numbers = {None if table[i][4] is None else as_number(table[i][4]) for i in members}
        for position, i in enumerate(members):
            if len(numbers) > 1:
                kinds[i] = "conflicting"
            elif position > 0:
                kinds[i] = "exact duplicate"
    return kinds


@settings(max_examples=300)
@given(rows)
def test_every_row_lands_or_is_quarantined_for_its_reason(table):
    frame = pl.DataFrame(
        [("bench", t, m, i, s, v, n + 1) for n, (t, m, i, s, v) in enumerate(table)],
        schema=PARSED_ROWS, orient="row",
    )
    result = validate_rows(frame, file="dump.csv", load_id="L")
    assert result.scores.height + result.quarantine.height == len(table)  # nothing silently dropped
    kinds = expected_outcome(table)
    assert result.scores.height == kinds.count(None)
    reasons = dict(zip(result.quarantine["line"].to_list(), result.quarantine["reason"].to_list(), strict=True))
    for line, kind in enumerate(kinds, start=1):
        assert (line in reasons) == (kind is not None)
        if kind is not None:
            assert reasons[line].startswith(kind), (kind, reasons[line])
    assert set(result.quarantine["file"].to_list()) <= {"dump.csv"}
    landed = result.scores
    assert landed.select("task", "metric", "instance", "system").is_duplicated().sum() == 0
    assert landed.filter(pl.col("score").is_not_null() & ~pl.col("score").is_finite()).height == 0


def test_reasons_are_counted_per_class_without_the_values_they_quote():
    table = [  # (task, metric, instance, system, value), each bad row's class written beside it
        ("t", "m", None, "A", "1.0"),
        ("t", "m", None, "B", "seventy"),  # non-numeric
        ("t", "m", None, "C", "n/a"),  # non-numeric
        ("t", "m", None, "D", "NaN"),  # non-finite
        ("t", "m", None, "E", "-inf"),  # non-finite
        ("t", "m", None, "F", "inf"),  # non-finite
        ("t", "m", None, "", "2.0"),  # empty system name
        ("", "m", None, "G", "2.0"),  # empty task name
        ("t", "m", "i1", "H", "1.0"),
        ("t", "m", "i1", "H", "1.0"),  # exact duplicate
        ("t", "m", "i2", "H", "1.0"),  # conflicting (both rows)
        ("t", "m", "i2", "H", "2.0"),  # conflicting
    ]
    frame = pl.DataFrame([("bench", *row, n + 1) for n, row in enumerate(table)], schema=PARSED_ROWS, orient="row")
    quarantine = validate_rows(frame, file="dump.csv", load_id="L").quarantine
    assert reason_counts(quarantine) == {
        "non-finite score": 3, "conflicting values for the same system and voter": 2, "non-numeric score": 2,
        "empty system name": 1, "empty task name": 1, "exact duplicate": 1,
    }
    assert list(reason_counts(quarantine)) == [  # most first, ties by name
        "non-finite score", "conflicting values for the same system and voter", "non-numeric score",
        "empty system name", "empty task name", "exact duplicate",
    ]
    unknown = pl.DataFrame({"reason": ["a reason of no class 1", "a reason of no class 1"]})
    assert reason_counts(unknown) == {"a reason of no class 1": 2}
