"""The complete part of a ballots table, against a plain-Python reading of the rule."""

import itertools

import numpy as np
import polars as pl
import pytest

from scorehouse.transforms.rank_plan import NotApplicable, complete_ballots


def _reference(rows: list[tuple[str, str, float | None]], level: str) -> set[str]:
    """The systems (task level) or voters (instance level) with a score for every voter / system."""
    voters = {v for v, _, _ in rows}
    systems = {s for _, s, _ in rows}
    scored = {(v, s) for v, s, x in rows if x is not None}
    if level == "task":
        return {s for s in systems if all((v, s) in scored for v in voters)}
    return {v for v in voters if all((v, s) in scored for s in systems)}


@pytest.mark.parametrize("level", ["task", "instance"])
@pytest.mark.parametrize("seed", range(6))
def test_complete_ballots_keep_exactly_the_complete_systems_or_voters(level, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for v, s in itertools.product(range(6), range(5)):
        draw = rng.random()
        if draw < 0.15:
            continue  # an absent row
        rows.append((f"v{v}", f"s{s}", None if draw < 0.25 else float(rng.integers(0, 3))))
    frame = pl.DataFrame(rows, schema={"voter": pl.String, "system": pl.String, "score": pl.Float64}, orient="row")
    whole = "system" if level == "task" else "voter"
    expected = _reference(rows, level)
    if not expected:
        with pytest.raises(NotApplicable):
            complete_ballots(frame, level)
        return
    kept, notes = complete_ballots(frame, level)
    assert set(kept.get_column(whole)) == expected
    left_out = set(frame.get_column(whole)) - expected
    assert kept.height == frame.filter(pl.col(whole).is_in(sorted(expected))).height
    if left_out:
        assert notes and f"left out {len(left_out)} " in notes[0]
    else:
        assert notes == () and kept.equals(frame)
