"""The complete part of a ballots table, against a plain-Python reading of the rule."""

import itertools

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators import bootstrap
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import MethodRun, NotApplicable, complete_ballots, run_intervals


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


def test_run_intervals_bootstrap_only_the_voters_the_run_selected():
    """A run recorded with ``only_task`` is bootstrapped on those tasks' voters, as it was ranked."""
    rng = np.random.default_rng(5)
    tasks = [f"math-{i}" for i in range(4)] + [f"code-{i}" for i in range(4)]
    # s0 leads on math, s3 on code: the selection changes the ranking
    rows = [{"benchmark": "b", "task": t, "metric": "acc", "instance": None, "system": f"s{s}", "load_id": "x",
             "score": float((s if t.startswith("code") else 3 - s) * 10 + rng.normal(0, 4))}
            for t in tasks for s in range(4)]
    scores = pl.DataFrame(rows, schema_overrides={"instance": pl.String})
    metrics = pl.DataFrame({"benchmark": "b", "task": tasks, "metric": "acc", "higher_is_better": True,
                            "is_ranked": True, "weight": 1.0, "group": tasks, "group_weight": 1.0})
    options = {"n_resamples": 40, "seed": 2}
    selected = run_intervals(scores, metrics, "task", MethodRun("mean", only=(("only_task", ("math-*",)),)), options)
    math = make_ballots(scores.filter(pl.col("task").str.starts_with("math")), metrics, level="task").collect()
    assert selected.equals(bootstrap("mean", math, **options))
    assert selected.get_column("system")[0] == "s0"
    every = make_ballots(scores, metrics, level="task").collect()
    assert run_intervals(scores, metrics, "task", MethodRun("mean"), options).equals(bootstrap("mean", every, **options))
