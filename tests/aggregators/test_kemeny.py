"""Exact Kemeny against exhaustive search over all permutations."""

import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given

from aggregators import TooManySystemsError, aggregate, run
from tests.aggregators import references
from tests.aggregators.conftest import ballots


@given(table=ballots(max_systems=7, max_voters=5, missing=True))
def test_kemeny_is_the_first_optimal_permutation(table):
    optimal, cost = references.kemeny_brute_force(table)
    result = run("kemeny", table)
    ranking = tuple(result.ranking["system"])
    assert ranking == optimal[0]
    assert result.ranking["rank"].to_list() == list(range(1, len(ranking) + 1))
    assert float(re.search(r"disagreement (\S+)", result.notes[0]).group(1)) == pytest.approx(cost, rel=1e-5)
    if len(optimal) > 1:
        assert result.notes[1].startswith(f"{len(optimal)} rankings reach the minimum")
    else:
        assert len(result.notes) == 1


def test_kemeny_refuses_more_systems_than_it_supports_and_points_to_borda():
    rng = np.random.default_rng(0)
    table = pl.DataFrame(
        {"voter": [f"t{v}" for v in range(3) for _ in range(21)], "system": [f"s{s:02d}" for _ in range(3) for s in range(21)], "score": rng.random(63)}
    )
    with pytest.raises(TooManySystemsError, match=r"at most 20 systems.*21.*'borda'"):
        aggregate("kemeny", table)
