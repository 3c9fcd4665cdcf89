"""condorcet_weights against direct checks, random weight vectors and an independent LP."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linprog

from scorehouse.aggregators import InvalidParameterError, condorcet_weights, prospective_winners
from tests.aggregators import references
from tests.aggregators.conftest import ballots


def wins_with(table: pl.DataFrame, weights: dict[str, float], system: str) -> bool:
    """Direct loop: does ``system`` strictly beat every other one under ``weights``?"""
    reweighted = table.with_columns(pl.col("voter").replace_strict(weights, return_dtype=pl.Float64).alias("weight"))
    return references.condorcet_winner(reweighted) == system


def votes(table: pl.DataFrame, system: str) -> tuple[list[str], np.ndarray]:
    systems, _, scores = references.as_dicts(table)
    voters = sorted(scores)
    rows = []
    for other in systems:
        if other != system:
            rows.append(
                [
                    np.sign(scores[v][system] - scores[v][other]) if system in scores[v] and other in scores[v] else 0.0
                    for v in voters
                ]
            )
    return voters, np.array(rows).reshape(len(systems) - 1, len(voters))


def weakly_wins_with(table: pl.DataFrame, weights: dict[str, float], system: str) -> bool:
    """Direct check: no other system beats ``system`` under ``weights`` (Vote'n'Rank's G_m w >= 0)."""
    voters, d = votes(table, system)
    return bool((d @ np.array([weights[v] for v in voters]) >= -1e-9).all())


def exists_by_scaling(table: pl.DataFrame, system: str) -> bool:
    """Independent formulation: some w >= 0 with D w >= 1 (a strict winner's weights, scaled)."""
    voters, d = votes(table, system)
    if d.shape[0] == 0:
        return True
    result = linprog(np.zeros(len(voters)), A_ub=-d, b_ub=-np.ones(d.shape[0]), bounds=[(0, None)] * len(voters), method="highs")
    return result.status == 0


def exists_weakly(table: pl.DataFrame, system: str) -> bool:
    """Independent formulation: some w >= 0 summing to 1 with D w >= 0 (a feasibility program)."""
    voters, d = votes(table, system)
    if d.shape[0] == 0:
        return True
    result = linprog(np.zeros(len(voters)), A_ub=-d, b_ub=np.zeros(d.shape[0]), A_eq=np.ones((1, len(voters))),
                     b_eq=[1.0], bounds=[(0, None)] * len(voters), method="highs")
    return result.status == 0


MARGINS = {"strict": (exists_by_scaling, wins_with), "weak": (exists_weakly, weakly_wins_with)}


@pytest.mark.parametrize("margin", sorted(MARGINS))
@given(table=ballots(min_systems=2, max_systems=5, max_voters=5, missing=True), data=st.data())
def test_weights_make_the_system_win_or_none_exist(margin, table, data):
    exists, wins = MARGINS[margin]
    system = data.draw(st.sampled_from(sorted(set(table["system"]))))
    found = condorcet_weights(table, system, margin=margin)
    assert (found is not None) == exists(table, system)
    if found is not None:
        weights = dict(found.weights.iter_rows())
        assert sorted(weights) == sorted(set(table["voter"]))
        assert min(weights.values()) >= 0 and sum(weights.values()) == pytest.approx(1.0)
        assert wins(table, weights, system)
        voters, d = votes(table, system)
        others = [s for s in sorted(set(table["system"])) if s != system]
        margins = d @ np.array([weights[v] for v in voters])
        assert set(found.tied) == {o for o, m in zip(others, margins) if abs(m) <= 1e-9}
        assert margin == "weak" or not found.tied
    else:
        rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
        voters = sorted(set(table["voter"]))
        samples = np.vstack([np.eye(len(voters)), rng.dirichlet(np.ones(len(voters)), size=200)])
        assert not any(wins(table, dict(zip(voters, w)), system) for w in samples)


@given(table=ballots(min_systems=2, max_systems=4, min_voters=2, max_voters=4), data=st.data())
def test_bounded_weights_stay_in_bounds(table, data):
    voters = sorted(set(table["voter"]))
    capped = data.draw(st.sampled_from(voters))
    bounds = {capped: (0.0, 0.25)}
    system = data.draw(st.sampled_from(sorted(set(table["system"]))))
    found = condorcet_weights(table, system, bounds=bounds, margin="strict")
    if found is not None:
        weights = dict(found.weights.iter_rows())
        assert weights[capped] <= 0.25 + 1e-12
        assert wins_with(table, weights, system)
    else:
        rng = np.random.default_rng(0)
        samples = rng.dirichlet(np.ones(len(voters)), size=400)
        samples = samples[samples[:, voters.index(capped)] <= 0.25]
        assert not any(wins_with(table, dict(zip(voters, w)), system) for w in samples)


def test_prospective_winners_lists_the_systems_with_weights():
    # a cycle over three tasks: each system wins when its own task dominates; d is never first
    table = pl.DataFrame(
        {
            "voter": ["t1"] * 4 + ["t2"] * 4 + ["t3"] * 4,
            "system": ["a", "b", "c", "d"] * 3,
            "score": [3.0, 2.0, 1.0, 0.0, 1.0, 3.0, 2.0, 0.0, 2.0, 1.0, 3.0, 0.0],
        }
    )
    for margin in ("weak", "strict"):
        assert prospective_winners(table, margin=margin)["system"].to_list() == ["a", "b", "c"]
        assert prospective_winners(table, bounds={"t1": (0.0, 0.1)}, margin=margin)["system"].to_list() == ["b", "c"]
        assert condorcet_weights(table, "d", margin=margin) is None


def test_a_weak_winner_ties_and_is_no_strict_winner():
    # a and b tie on every task: each is a weak winner under any weights (tying the other), neither a strict one
    table = pl.DataFrame({"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b"] * 2, "score": [1.0, 1.0, 2.0, 2.0]})
    assert condorcet_weights(table, "a").tied == ("b",)
    assert condorcet_weights(table, "a", margin="strict") is None
    assert prospective_winners(table).rows() == [("a", ["b"]), ("b", ["a"])]
    assert prospective_winners(table, margin="strict").height == 0


def test_bad_requests_are_named():
    table = pl.DataFrame({"voter": ["t1", "t1"], "system": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError, match="system 'z'"):
        condorcet_weights(table, "z")
    with pytest.raises(InvalidParameterError, match="voter 'nobody'"):
        condorcet_weights(table, "a", bounds={"nobody": (0.0, 1.0)})
    with pytest.raises(InvalidParameterError, match=r"0 <= low <= high <= 1.*\(0.5, 0.2\)"):
        condorcet_weights(table, "a", bounds={"t1": (0.5, 0.2)})
    with pytest.raises(InvalidParameterError, match="widen the bounds"):
        condorcet_weights(table, "a", bounds={"t1": (0.0, 0.5)})
    with pytest.raises(InvalidParameterError, match="'margin'.*'weak', 'strict'"):
        condorcet_weights(table, "a", margin="loose")
