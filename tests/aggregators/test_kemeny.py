"""Exact Kemeny against exhaustive search, and its two solvers and its decomposition against each other."""

import itertools
import re
import time

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.aggregators import InvalidParameterError, build_profile, run
from scorehouse.aggregators.kemeny import DP_MAX_SYSTEMS, kemeny_order
from scorehouse.aggregators.kemeny_ilp import solve_order
from scorehouse.aggregators.kemeny_order import Budget
from scorehouse.aggregators.majority import majority
from scorehouse.aggregators.majority_components import majority_blocks
from scorehouse.aggregators.synthetic import synthetic_ballots
from tests.aggregators import references
from tests.aggregators.conftest import ballots


def reference_costs(table: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """``C[x, y]`` from the plain pairwise counts: voters scoring y above x, plus half the ties."""
    systems, wins, ties = references.pairwise_counts(table)
    costs = np.array([[wins[(y, x)] + ties[(x, y)] / 2 if x != y else 0.0 for y in systems] for x in systems])
    return systems, costs


def ranking_cost(costs: np.ndarray, order) -> float:
    return sum(costs[x, y] for i, x in enumerate(order) for y in order[i + 1 :])


def brute_force(costs: np.ndarray) -> tuple[float, list[tuple[int, ...]]]:
    """Optimal cost and every optimal ranking (indices, best first), in lexicographic order."""
    by_order = {order: ranking_cost(costs, order) for order in itertools.permutations(range(costs.shape[0]))}
    best = min(by_order.values())
    return best, [o for o, c in by_order.items() if c <= best + 1e-9]


def cyclic_ballots(n: int) -> pl.DataFrame:
    """n voters, voter v ranks s(v), s(v+1), ... s(v+n-1) (mod n): every system beats the next (n-1)/2."""
    return pl.DataFrame({
        "voter": [f"v{v:02d}" for v in range(n) for _ in range(n)],
        "system": [f"s{(v + k) % n:02d}" for v in range(n) for k in range(n)],
        "score": [float(n - k) for _ in range(n) for k in range(n)],
    })


def minimum(notes: tuple[str, ...]) -> float:
    return float(re.fullmatch(r"minimum total weighted Kendall disagreement (\S+)", notes[0]).group(1))


@given(table=ballots(max_systems=7, max_voters=5, missing=True))
def test_kemeny_is_the_first_optimal_permutation(table):
    optimal, cost = references.kemeny_brute_force(table)
    result = run("kemeny", table)
    ranking = tuple(result.ranking["system"])
    assert ranking == optimal[0]
    assert result.ranking["rank"].to_list() == list(range(1, len(ranking) + 1))
    assert minimum(result.notes) == pytest.approx(cost, rel=1e-5)
    if len(optimal) > 1:
        assert result.notes[1].startswith(f"{len(optimal)} rankings reach the minimum")
    else:
        assert result.notes[1] == "the optimal ranking is unique"


def reference_blocks(table: pl.DataFrame) -> tuple[list[str], list[list[bool]]]:
    """``reach[x][y]``: a path x -> ... -> y where each step does not strictly lose (Warshall's closure)."""
    systems, wins, _ = references.pairwise_counts(table)
    n = len(systems)
    reach = [[a == b or not references.beats(wins, systems[b], systems[a]) for b in range(n)] for a in range(n)]
    for k in range(n):
        for a in range(n):
            for b in range(n):
                reach[a][b] = reach[a][b] or (reach[a][k] and reach[k][b])
    return systems, reach


@given(table=ballots(min_systems=2, max_systems=7, max_voters=5, missing=True))
def test_every_optimal_ranking_keeps_the_blocks_of_the_majority_graph_in_order(table):
    """The extended Condorcet criterion that the decomposition relies on, checked on every optimum."""
    systems, reach = reference_blocks(table)
    _, costs = reference_costs(table)
    _, optima = brute_force(costs)
    for order in optima:
        for i, j in itertools.combinations(range(len(order)), 2):
            above, below = order[i], order[j]
            assert reach[above][below]  # never below a system whose block is strictly lower
    blocks = majority_blocks(majority(build_profile(table)).beats)
    expected = sorted(
        {tuple(b for b in range(len(systems)) if reach[a][b] and reach[b][a]) for a in range(len(systems))},
        key=lambda block: -sum(reach[block[0]][b] for b in range(len(systems))),
    )
    assert [b.tolist() for b in blocks] == [list(b) for b in expected]


@settings(deadline=None, max_examples=40)
@given(table=ballots(min_systems=2, max_systems=9, max_voters=5, missing=True))
def test_integer_program_equals_dynamic_program(table):
    _, costs = reference_costs(table)
    order, cost, optima = kemeny_order(costs, 1e-9)
    solution = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    assert solution.optimal
    assert solution.cost == pytest.approx(cost, abs=1e-9)
    assert ranking_cost(costs, list(solution.order)) == pytest.approx(cost, abs=1e-9)
    assert sorted(solution.order.tolist()) == list(range(costs.shape[0]))
    assert solution.unique == (optima == 1)


@settings(deadline=None, max_examples=40)
@given(table=ballots(min_systems=2, max_systems=6, max_voters=5, missing=True))
def test_integer_program_finds_an_optimum_and_knows_if_it_is_unique(table):
    _, costs = reference_costs(table)
    best, optima = brute_force(costs)
    solution = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    assert tuple(solution.order.tolist()) in optima
    assert solution.cost == pytest.approx(best, abs=1e-9)
    assert solution.unique == (len(optima) == 1)


@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(17, 22), phi=st.sampled_from([0.0, 0.02, 0.1]))
def test_decomposition_equals_the_undecomposed_integer_program(seed, n, phi):
    table = synthetic_ballots(n, 5, phi=phi, seed=seed)
    result = run("kemeny", table)
    _, costs = reference_costs(table)
    whole = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    assert whole.optimal
    assert minimum(result.notes) == pytest.approx(whole.cost, rel=1e-6)
    systems = sorted(set(table["system"]))
    ranked = [systems.index(s) for s in result.ranking["system"]]
    assert ranking_cost(costs, ranked) == pytest.approx(whole.cost, rel=1e-9)


def test_the_three_rotations_of_a_condorcet_cycle_are_optimal_and_the_program_says_there_are_several():
    costs = reference_costs(cyclic_ballots(3))[1]
    assert brute_force(costs)[1] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    solution = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    # no two neighbours are tied, so it takes the second (no-good cut) program to see the other optima
    assert tuple(solution.order.tolist()) in brute_force(costs)[1]
    assert solution.unique is False


def test_a_majority_graph_that_is_one_cycle_is_one_block_solved_by_integer_programming():
    n = DP_MAX_SYSTEMS + 3  # odd: every system beats the (n - 1) / 2 that follow it around the cycle
    table = cyclic_ballots(n)
    result = run("kemeny", table)
    assert result.notes[2] == f"1 block(s) of the majority graph, the largest of {n} systems; 1 solved by integer programming"
    _, costs = reference_costs(table)
    _, cost, optima = kemeny_order(costs, 1e-9)  # the dynamic program, on the whole cycle
    assert minimum(result.notes) == pytest.approx(cost)
    assert optima >= n  # every rotation of the cycle is optimal
    assert result.notes[1].startswith("at least 2 rankings reach the minimum")


def test_the_program_finds_other_optima_that_no_swap_of_neighbours_reaches():
    # a 3-cycle on top of 17 systems every voter orders the same way, solved undecomposed
    base = [f"s{k:02d}" for k in range(20)]
    orders = [base, base[1:3] + base[:1] + base[3:], base[2:3] + base[:2] + base[3:]]
    rows = [{"voter": f"v{v}", "system": s, "score": float(20 - k)} for v, o in enumerate(orders) for k, s in enumerate(o)]
    table = pl.DataFrame(rows)
    _, costs = reference_costs(table)
    solution = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    best, optima = brute_force(costs[:3, :3])  # the rest agree everywhere, so only the top three can move
    assert solution.cost == pytest.approx(best)
    assert solution.unique is False and len(optima) == 3


def test_the_unique_optimum_of_a_large_block_is_reported_unique():
    table = cyclic_ballots(DP_MAX_SYSTEMS + 3).with_columns(
        weight=pl.when(pl.col("voter") == "v00").then(1.5).otherwise(1.0)
    )
    result = run("kemeny", table)
    _, costs = reference_costs(table)
    _, cost, optima = kemeny_order(costs, 1e-9)
    assert optima == 1
    assert minimum(result.notes) == pytest.approx(cost)
    assert result.notes[1] == "the optimal ranking is unique"


def test_a_tiny_time_limit_on_a_hard_profile_reports_a_gap_not_an_optimum():
    table = synthetic_ballots(60, 15, phi=0.0, seed=3)
    result = run("kemeny", table, params={"time_limit": 0.01})
    found = re.fullmatch(
        r"total weighted Kendall disagreement (\S+), not proven minimal: the time limit of 0.01 s of CPU ran out; "
        r"lower bound (\S+), gap (\S+) %",
        result.notes[0],
    )
    cost, lower, gap = (float(g) for g in found.groups())
    _, costs = reference_costs(table)
    systems = sorted(set(table["system"]))
    assert ranking_cost(costs, [systems.index(s) for s in result.ranking["system"]]) == pytest.approx(cost, rel=1e-5)
    trivial = sum(min(costs[i, j], costs[j, i]) for i, j in itertools.combinations(range(60), 2))
    assert trivial - 1e-6 <= lower < cost
    assert gap == pytest.approx(100 * (cost - lower) / cost, rel=0.06)  # printed to 2 significant digits
    assert sorted(result.ranking["rank"].to_list()) == list(range(1, 61))


def test_time_limit_must_be_a_number_of_seconds():
    table = cyclic_ballots(3)
    with pytest.raises(InvalidParameterError, match=r"'kemeny'.*'time_limit'.*\[0.0, inf\]"):
        run("kemeny", table, params={"time_limit": -1})


def _broken_rows_by_brute_force(x: np.ndarray, pair: dict[tuple[int, int], int], n: int) -> dict[tuple, float]:
    """Every triple i < j < k whose row 0 <= x_ij + x_jk - x_ik <= 1 fails, with how far it fails."""
    broken = {}
    for i, j, k in itertools.combinations(range(n), 3):
        ids = (pair[i, j], pair[j, k], pair[i, k])
        value = x[ids[0]] + x[ids[1]] - x[ids[2]]
        excess = max(-value, value - 1)
        if excess > 1e-6:
            broken[ids] = excess
    return broken


@pytest.mark.parametrize("n", [3, 6, 11])
def test_the_violated_3_cycle_rows_are_those_of_brute_force(n):
    from scorehouse.aggregators.kemeny_ilp import _Program

    rng = np.random.default_rng(n)
    program = _Program.build(rng.random((n, n)), 1.0)
    pair = {(i, j): program.pair_id[i, j] for i, j in itertools.combinations(range(n), 2)}
    assert {tuple(t) for t in program.triples_where(None)} == {
        (pair[i, j], pair[j, k], pair[i, k]) for i, j, k in itertools.combinations(range(n), 3)
    }
    for x in (rng.choice([0.0, 1.0], size=len(pair)), rng.choice([0.0, 0.25, 0.5, 1.0], size=len(pair))):
        found = [tuple(t) for t in program.triples_where(x)]
        assert len(found) == len(set(found))
        assert set(found) == set(_broken_rows_by_brute_force(x, pair, n))


def test_a_round_adds_the_most_violated_rows_up_to_its_limit(monkeypatch):
    import scorehouse.aggregators.kemeny_ilp as kemeny_ilp

    n = 12
    rng = np.random.default_rng(5)
    program = kemeny_ilp._Program.build(rng.random((n, n)), 1.0)
    pair = {(i, j): program.pair_id[i, j] for i, j in itertools.combinations(range(n), 2)}
    x = rng.choice([0.0, 0.3, 0.6, 1.0], size=len(pair))
    broken = _broken_rows_by_brute_force(x, pair, n)
    assert len(broken) > 3 * 7
    monkeypatch.setattr(kemeny_ilp, "ROWS_PER_ROUND", 7)  # pruned several times while searching
    found = [tuple(t) for t in program.triples_where(x)]
    assert len(found) == len(set(found)) == 7 and set(found) <= set(broken)
    left_out = set(broken) - set(found)
    assert min(broken[t] for t in found) >= max(broken[t] for t in left_out) - 1e-12


def test_the_default_run_gives_kemeny_the_documented_budget():
    """README: the default methods give ``kemeny`` 5 s (asked for by name it keeps its 60 s)."""
    from scorehouse.transforms.rank_plan import default_runs

    kemeny_runs = [r for r in default_runs("task", False) if r.method == "kemeny"]
    assert [r.params for r in kemeny_runs] == [{"time_limit": 5.0}]


def test_a_mallows_profile_near_uniform_is_solved_by_the_integer_program_as_by_the_dynamic_program():
    from benchmarks.bench_kemeny import mallows_ballots

    # phi = 0.98: the shape of the 300-system benchmark case, at the dynamic program's size
    _, costs = reference_costs(mallows_ballots(DP_MAX_SYSTEMS, 20, 0.98, seed=1))
    _, cost, optima = kemeny_order(costs, 1e-9)
    solution = solve_order(costs, budget=Budget(60), tolerance=1e-9)
    assert solution.optimal and solution.cost == pytest.approx(cost, abs=1e-9)
    assert solution.unique == (optima == 1)


def test_a_spent_budget_still_proves_a_warm_start_that_meets_the_lower_bound():
    # unanimous voters: the warm start (net preference order) costs 0, the pairwise lower bound is 0
    n = DP_MAX_SYSTEMS + 4
    systems = [f"s{k:02d}" for k in range(n)]
    table = pl.DataFrame([{"voter": f"v{v}", "system": s, "score": float(n - k)} for v in range(3)
                          for k, s in enumerate(systems)])
    _, costs = reference_costs(table)
    solution = solve_order(costs, budget=Budget(0.0), tolerance=1e-9)
    assert solution.optimal and solution.cost == 0.0 and solution.order.tolist() == list(range(n))
    assert solution.unique is None  # not decided: no budget left for the second program


def test_the_budget_counts_cpu_seconds_not_waiting():
    budget = Budget(0.5)
    sleep_until = time.monotonic() + 1.0
    while time.monotonic() < sleep_until:
        time.sleep(0.05)  # waiting, as for the cores of a busy machine: no CPU time of this process
    assert not budget.spent() and budget.remaining() > 0.3
    assert budget.wall_allowance() >= budget.remaining()


def test_a_lower_bound_rounds_up_to_the_step_of_every_rankings_cost():
    from scorehouse.aggregators.kemeny_ilp import _Program, cost_unit

    whole = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [2.0, 0.0, 0.0]])
    # brute force: every ranking of ``whole`` costs a whole number, so a bound of 4.3 proves 5
    assert all(ranking_cost(whole, list(p)) % 1 == 0 for p in itertools.permutations(range(3)))
    assert cost_unit(whole) == 1.0 and cost_unit(whole + 0.5 * np.eye(3)[::-1]) == 0.5
    assert cost_unit(whole * 0.3) == 0.0  # weighted voters: no common step, no rounding
    program = _Program.build(whole, 1.0)
    assert program.lower_bound(4.3 - program.constant) == 5.0
    assert program.lower_bound(5.0 + 1e-12 - program.constant) == 5.0  # float noise: not 6
    assert _Program.build(whole * 0.3, 1.0).lower_bound(4.3 - program.constant * 0.3) == pytest.approx(4.3)
