"""Nemenyi critical difference against Demšar (2006)'s printed numbers, average ranks and cliques by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators.critical_difference import critical_difference, nemenyi_q
from scorehouse.aggregators.errors import AggregationError

# Demšar 2006, Table 5(a): critical values q_0.05 of the two-tailed Nemenyi test, k = 2 .. 10.
DEMSAR_Q05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)


def test_q_values_are_demsars():
    # the printed table is rounded to three decimals (and a few entries sit one unit off the exact quantile)
    assert [nemenyi_q(k) for k in range(2, 11)] == pytest.approx(DEMSAR_Q05, abs=1e-3)


def test_cd_of_demsars_example():
    # Section 3.2.4: four classifiers on fourteen data sets, "CD = 2.569 sqrt(4.5 / (6.14)) = 1.25"
    rng = np.random.default_rng(0)
    ballots = pl.DataFrame([(f"v{v}", s, float(rng.normal())) for v in range(14) for s in "abcd"],
                           schema=["voter", "system", "score"], orient="row")
    assert round(critical_difference(ballots).critical_difference, 2) == 1.25


def _brute_average_ranks(scores: dict[str, dict[str, float]]) -> dict[str, float]:
    """Per voter, rank 1 = best, tied systems get the mean of the positions they span."""
    totals = {s: 0.0 for s in next(iter(scores.values()))}
    for row in scores.values():
        for s, v in row.items():
            better = sum(1 for o in row.values() if o > v)
            equal = sum(1 for o in row.values() if o == v)
            totals[s] += better + (equal + 1) / 2
    return {s: t / len(scores) for s, t in totals.items()}


def test_average_ranks_and_cliques_by_brute_force():
    rng = np.random.default_rng(5)
    systems = [f"s{i}" for i in range(7)]
    scores = {f"v{v}": {s: float(rng.integers(0, 6)) + i * 0.4 for i, s in enumerate(systems)} for v in range(12)}
    rows = [(v, s, x) for v, row in scores.items() for s, x in row.items()]
    rows.append(("v0", "incomplete", 9.0))  # scored by one voter only: left out
    result = critical_difference(pl.DataFrame(rows, schema=["voter", "system", "score"], orient="row"))
    expected = _brute_average_ranks(scores)
    assert set(result.systems) == set(systems)
    assert dict(zip(result.systems, result.average_ranks)) == pytest.approx(expected)
    assert list(result.average_ranks) == sorted(result.average_ranks)
    ranks, cd = result.average_ranks, result.critical_difference
    within = [(i, j) for i, j in itertools.combinations(range(len(ranks)), 2) if ranks[j] - ranks[i] < cd]
    maximal = {(i, j) for i, j in within
               if not any((a, b) != (i, j) and a <= i and j <= b for a, b in within)}
    assert set(result.cliques) == maximal


def test_too_little_data_is_refused():
    one_voter = pl.DataFrame({"voter": ["v", "v"], "system": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(AggregationError, match="2 voters"):
        critical_difference(one_voter)
    gaps = pl.DataFrame({"voter": ["v", "v", "w", "w"], "system": ["a", "b", "a", "c"], "score": [1.0, 2.0, 1.0, 2.0]})
    with pytest.raises(AggregationError, match="scored by every voter"):
        critical_difference(gaps)
