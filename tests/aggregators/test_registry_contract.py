"""The contract every registered method keeps, checked over the whole REGISTRY.

Only the registry's metadata is used (handles_missing, stochastic, declared
properties, parameter names, partition forms), so methods added later are
checked too.  Each
method runs with its default parameters on generated profiles; the reference
facts (Condorcet winner and loser, unanimous winner) come from the direct
loops of ``references.py``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from scorehouse import aggregators
from scorehouse.aggregators import (
    REGISTRY,
    AggregationError,
    InvalidBallotsError,
    InvalidParameterError,
    MissingScoresError,
    Voters,
    build_profile,
    combine,
    finish_partitioned,
    run,
)
from tests.aggregators import references
from tests.aggregators.conftest import SYSTEM_NAMES, ballots
from scorehouse.transforms.rank_plan import NotApplicable, complete_ballots

METHODS = sorted(REGISTRY)
# Parameters a method cannot run without (no default), with a value that suits the generated scores.
REQUIRED = {"optimality_gap": {"target": 3.0}}


def aggregate(name: str, table: pl.DataFrame, **params) -> pl.DataFrame:  # noqa: ANN003 - the method's parameters
    """:func:`aggregators.aggregate` with the method's required parameters filled in."""
    return aggregators.aggregate(name, table, **{**REQUIRED.get(name, {}), **params})
SCHEMA = pl.Schema({"system": pl.String, "score": pl.Float64, "rank": pl.Int64, "tied": pl.Boolean})


def with_property(prop: str) -> list[str]:
    return [name for name in METHODS if prop in REGISTRY[name].properties]


def method_ballots(name: str, **kwargs) -> st.SearchStrategy[pl.DataFrame]:
    """Ballots the method accepts: with missing cells and unequal weights when it handles them."""
    info = REGISTRY[name]
    return ballots(missing=info.handles_missing, weighted=info.handles_weights, **kwargs)


def by_system(result: pl.DataFrame) -> dict[str, tuple[float, int]]:
    return {s: (score, rank) for s, score, rank in result.select("system", "score", "rank").iter_rows()}


def assert_same_ranking(a: dict[str, tuple[float, int]], b: dict[str, tuple[float, int]]) -> None:
    assert a.keys() == b.keys()
    for system in a:
        assert a[system][1] == b[system][1], system
        np.testing.assert_allclose(a[system][0], b[system][0], rtol=1e-9, atol=1e-12)


def rank_of(name: str, ballot_table: pl.DataFrame, system: str) -> int:
    return by_system(aggregate(name, ballot_table))[system][1]


@pytest.mark.parametrize("name", METHODS)
@given(data=st.data())
def test_output_schema_order_and_ranks(name, data):
    table = data.draw(method_ballots(name))
    result = aggregate(name, table)
    assert result.schema == SCHEMA
    assert sorted(result["system"]) == sorted(set(table["system"]))
    assert_frame_equal(result, result.sort("rank", "system"))  # a NaN score (nothing to rank on) equals itself
    scores = dict(zip(result["system"], result["score"]))
    finite = {s: v for s, v in scores.items() if not np.isnan(v)}
    expected = references.ranks_from_scores(finite)
    expected.update(dict.fromkeys(set(scores) - set(finite), len(finite) + 1))
    assert dict(zip(result["system"], result["rank"])) == expected
    rank_counts = result["rank"].value_counts()
    shared = set(rank_counts.filter(pl.col("count") > 1)["rank"])
    assert result["tied"].to_list() == [r in shared for r in result["rank"]]


@pytest.mark.parametrize("name", METHODS)
@given(data=st.data())
def test_row_order_does_not_matter(name, data):
    table = data.draw(method_ballots(name))
    shuffled = table.sample(fraction=1.0, shuffle=True, seed=data.draw(st.integers(0, 2**16)))
    assert_frame_equal(aggregate(name, table), aggregate(name, shuffled))


@pytest.mark.parametrize("name", with_property("neutral"))
@given(data=st.data())
def test_relabelling_systems_relabels_the_result(name, data):
    table = data.draw(method_ballots(name))
    names = sorted(set(table["system"]))
    new_names = data.draw(st.permutations(SYSTEM_NAMES))[: len(names)]
    mapping = dict(zip(names, new_names))
    relabelled = aggregate(name, table.with_columns(pl.col("system").replace_strict(mapping)))
    original = {mapping[s]: v for s, v in by_system(aggregate(name, table)).items()}
    assert_same_ranking(original, by_system(relabelled))


@pytest.mark.parametrize("name", with_property("anonymous"))
@given(data=st.data())
def test_relabelling_voters_does_not_matter(name, data):
    table = data.draw(method_ballots(name))
    voters = sorted(set(table["voter"]))
    new_names = data.draw(st.permutations([f"renamed-{i}" for i in range(len(voters))]))
    relabelled = table.with_columns(pl.col("voter").replace_strict(dict(zip(voters, new_names))))
    assert_same_ranking(by_system(aggregate(name, table)), by_system(aggregate(name, relabelled)))


@pytest.mark.parametrize("name", METHODS)
@given(data=st.data())
def test_duplicated_voter_system_is_rejected(name, data):
    table = data.draw(ballots(missing=False))
    with pytest.raises(InvalidBallotsError, match="times"):
        aggregate(name, pl.concat([table, table.head(1)]))


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_score_is_rejected(name, bad):
    table = pl.DataFrame({"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b", "a", "b"], "score": [1.0, bad, 2.0, 1.0]})
    with pytest.raises(InvalidBallotsError, match="non-finite"):
        aggregate(name, table)


@pytest.mark.parametrize("name", METHODS)
def test_unknown_parameter_is_rejected(name):
    table = pl.DataFrame({"voter": ["t1", "t1"], "system": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError, match="no_such_parameter"):
        aggregate(name, table, no_such_parameter=1)


@pytest.mark.parametrize("name", [n for n in METHODS if not REGISTRY[n].handles_missing])
def test_missing_scores_are_rejected_unless_handled(name):
    table = pl.DataFrame({"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b", "a", "b"], "score": [1.0, None, 2.0, 1.0]})
    with pytest.raises(MissingScoresError, match="'t1'.*'b'"):
        aggregate(name, table)
    with pytest.raises(MissingScoresError):  # an absent row is a missing score too
        aggregate(name, table.drop_nulls())


@pytest.mark.parametrize("name", METHODS)
@given(data=st.data())
def test_same_input_same_result(name, data):
    """Deterministic methods repeat themselves; stochastic ones do given the same seed."""
    table = data.draw(method_ballots(name))
    params = {"seed": data.draw(st.integers(0, 2**31 - 1))} if REGISTRY[name].stochastic else {}
    assert_frame_equal(aggregate(name, table, **params), aggregate(name, table, **params))


@pytest.mark.parametrize("name", with_property("unanimity"))
@given(data=st.data())
def test_unanimity(name, data):
    table = data.draw(ballots(min_systems=2))
    systems = sorted(set(table["system"]))
    favourite = data.draw(st.sampled_from(systems))
    # the favourite gets a score above every other score of every voter
    table = table.with_columns(
        pl.when(pl.col("system") == favourite).then(pl.col("score").max() + 1.0).otherwise(pl.col("score")).alias("score")
    )
    assert rank_of(name, table, favourite) == 1


def draw_with(name: str, data: st.DataObject, find) -> tuple[pl.DataFrame, str]:
    """Ballots for ``name`` that have a system ``find`` identifies (Condorcet winner or loser)."""
    table = data.draw(method_ballots(name, min_systems=2, max_systems=5))
    system = find(table)
    assume(system is not None)
    return table, system


@pytest.mark.parametrize("name", with_property("condorcet_consistent"))
@given(data=st.data())
def test_condorcet_winner_is_the_sole_winner(name, data):
    table, winner = draw_with(name, data, references.condorcet_winner)
    assert aggregate(name, table).filter(pl.col("rank") == 1)["system"].to_list() == [winner]


@pytest.mark.parametrize("name", with_property("condorcet_loser"))
@given(data=st.data())
def test_condorcet_loser_is_never_first(name, data):
    table, loser = draw_with(name, data, references.condorcet_loser)
    assert rank_of(name, table, loser) > 1


@pytest.mark.parametrize("name", with_property("monotone"))
@given(data=st.data())
def test_raising_a_score_never_lowers_the_rank(name, data):
    table = data.draw(method_ballots(name, min_systems=2))
    observed = table.filter(pl.col("score").is_not_null())
    assume(observed.height > 0)
    row = data.draw(st.integers(0, observed.height - 1))
    voter, system = observed.row(row, named=True)["voter"], observed.row(row, named=True)["system"]
    raise_by = data.draw(st.sampled_from([0.5, 1.0, 4.0, 100.0]))
    raised = table.with_columns(
        pl.when((pl.col("voter") == voter) & (pl.col("system") == system))
        .then(pl.col("score") + raise_by)
        .otherwise(pl.col("score"))
        .alias("score")
    )
    assert rank_of(name, raised, system) <= rank_of(name, table, system)


@pytest.mark.parametrize("name", [m for m in METHODS if not REGISTRY[m].handles_weights])
def test_methods_without_weights_refuse_unequal_weights(name):
    table = pl.DataFrame(
        {"voter": ["u", "u", "v", "v"], "system": ["a", "b", "a", "b"], "score": [1.0, 0.0, 0.0, 1.0],
         "weight": [2.0, 2.0, 1.0, 1.0]}
    )
    with pytest.raises(InvalidBallotsError, match=rf"{name}.*voter 'u' has weight 2.0"):
        aggregate(name, table)
    assert aggregate(name, table.with_columns(weight=pl.lit(3.0))).height == 2  # equal weights are fine


def partitions_of(table: pl.DataFrame, assignment: list[int], local: bool = False) -> list[Voters]:
    """The voters of ``table`` in partitions of whole groups: group ``g`` goes to ``assignment[g]``.

    ``local``: each partition keeps only the systems its voters scored (as
    :func:`transforms.dense.dense_partition` makes them), counting the others as absent.
    """
    profile = build_profile(table)
    names = sorted(set(profile.groups))
    codes = np.searchsorted(names, profile.groups)
    out = []
    for part in sorted(set(assignment[: len(names)])):
        rows = np.flatnonzero(np.isin(codes, [g for g in range(len(names)) if assignment[g] == part]))
        if not rows.size:
            continue
        kept = ~np.isnan(profile.scores[rows]).all(axis=0) if local else np.ones(len(profile.systems), dtype=bool)
        systems = tuple(s for s, keep in zip(profile.systems, kept) if keep)
        out.append(Voters(systems, profile.scores[np.ix_(rows, np.flatnonzero(kept))], profile.weights[rows],
                          codes[rows], tuple(names), absent=int((~kept).sum())))
    return out


def outcome(compute):  # noqa: ANN001, ANN201 - a thunk; its result or the class of its refusal
    try:
        return compute()
    except AggregationError as error:
        return type(error)


@pytest.mark.parametrize("name", [m for m in METHODS if REGISTRY[m].partition is not None])
@given(data=st.data())
def test_partition_wise_equals_the_whole_table(name, data):
    """Partials of random partitions of whole groups, combined in any order and finished, give ``run``.

    Methods that need complete ballots are compared with ``run`` on the
    complete voters (what the rank flow gives them on whole tables).
    """
    info = REGISTRY[name]
    table = data.draw(ballots(min_systems=2, missing=True, weighted=info.handles_weights, groups=True))
    assignment = data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=2))
    parts = partitions_of(table, assignment, local=data.draw(st.booleans()))
    parts = data.draw(st.permutations(parts))
    partial = combine([info.partition.partial(p) for p in parts], build_profile(table).systems)
    for two_step in (False, True) if info.partition.two_step else (False,):
        got = outcome(lambda: finish_partitioned(name, partial, two_step=two_step))
        try:
            whole = table if info.handles_missing else complete_ballots(table, "instance")[0]
        except NotApplicable:  # no voter scores every system
            assert got is InvalidBallotsError
            continue
        expected = outcome(lambda: run(name, whole, two_step=two_step))
        if isinstance(expected, type):
            assert got is expected
            continue
        assert not isinstance(got, type), got
        assert got.n_voters == expected.n_voters
        assert_same_ranking(by_system(got.ranking), by_system(expected.ranking))
