"""The integer phase of exact Kemeny against exhaustive search: its bound, its fixings, its search, its lattice.

Every expected value comes from enumerating all rankings of a small block
(``tests/aggregators/test_kemeny.py``'s ``brute_force`` and ``ranking_cost``)
or from scipy's ``linprog`` on the same linear program.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from scorehouse.aggregators.kemeny_highs import OrderModel
from scorehouse.aggregators.kemeny_ilp import WINDOW, _Incumbent, _Program, _relax, cost_step, improve
from scorehouse.aggregators.kemeny_order import Budget
from scorehouse.aggregators.kemeny_search import ranking_at_most, settled_above
from tests.aggregators.conftest import ballots
from tests.aggregators.test_kemeny import brute_force, ranking_cost, reference_costs


def relaxed(costs: np.ndarray, lazy: bool):
    """The program of ``costs``, its relaxation (3-cycle rows lazily or all at once) and the rows' triples."""
    program = _Program.build(costs, 1.0)
    model = OrderModel(program.objective)
    active = program.no_triples if lazy else program.triples_where(None)
    if len(active):
        program.add_rows(model, active)
    # a deliberately poor incumbent (the reverse preference order) so that the relaxation is not cut short
    incumbent = _Incumbent(costs, 1e-9)
    incumbent.cost = np.inf
    relaxation, active = _relax(program, model, Budget(60), incumbent, active)
    return program, relaxation, active


def every_objective(program: _Program, n: int) -> dict[tuple[int, ...], float]:
    """The scaled objective of every ranking (its cost less the program's constant)."""
    return {p: ranking_cost(program_costs(program, n), p) for p in itertools.permutations(range(n))}


def program_costs(program: _Program, n: int) -> np.ndarray:
    """Pair costs whose ranking cost is the program's objective: C[i, j] - C[j, i] above the diagonal only."""
    costs = np.zeros((n, n))
    costs[program.first, program.second] = program.objective
    return costs


@settings(deadline=None, max_examples=30)
@given(table=ballots(min_systems=3, max_systems=6, max_voters=5, missing=True))
def test_the_bound_from_the_duals_is_the_relaxations_optimum_by_linprog(table):
    _, costs = reference_costs(table)
    n = costs.shape[0]
    program, relaxation, _ = relaxed(costs, lazy=False)
    triples = program.triples_where(None)
    rows = np.zeros((len(triples), program.objective.size))
    for r, (ij, jk, ik) in enumerate(triples):
        rows[r, [ij, jk, ik]] = [1.0, 1.0, -1.0]
    reference = linprog(program.objective, A_ub=np.vstack([rows, -rows]),
                        b_ub=np.concatenate([np.ones(len(triples)), np.zeros(len(triples))]), bounds=(0, 1))
    assert relaxation.bound == pytest.approx(reference.fun, abs=1e-6)
    assert relaxation.bound <= min(every_objective(program, n).values()) + 1e-9


@settings(deadline=None, max_examples=40)
@given(table=ballots(min_systems=3, max_systems=6, max_voters=5, missing=True), extra=st.integers(0, 4),
       lazy=st.booleans())
def test_settled_pairs_are_kept_by_every_ranking_within_the_target(table, extra, lazy):
    _, costs = reference_costs(table)
    n = costs.shape[0]
    program, relaxation, _ = relaxed(costs, lazy)
    objectives = every_objective(program, n)
    values = sorted(set(np.round(list(objectives.values()), 9)))
    target = values[min(extra, len(values) - 1)]
    above = settled_above(program, relaxation, target)
    cheap = [p for p, value in objectives.items() if value <= target + 1e-9]
    assert cheap and above is not None
    for ranking in cheap:
        position = np.argsort(ranking)
        for i, j in zip(*np.nonzero(above), strict=True):
            assert position[i] < position[j]


@settings(deadline=None, max_examples=60)
@given(table=ballots(min_systems=3, max_systems=7, max_voters=5, missing=True), extra=st.integers(-1, 3),
       repairing=st.booleans())
def test_the_search_finds_a_ranking_within_the_target_exactly_when_one_exists(table, extra, repairing):
    _, costs = reference_costs(table)
    n = costs.shape[0]
    program, relaxation, active = relaxed(costs, lazy=True)
    objectives = every_objective(program, n)
    values = sorted(set(np.round(list(objectives.values()), 9)))
    target = values[extra] - 0.25 if extra < 0 else values[min(extra, len(values) - 1)]
    gap = min((b - a for a, b in itertools.pairwise(values)), default=1.0)
    # a program solution that breaks rows may be repaired by local search (on the objective's own pair costs)
    repair = (lambda order: improve(program_costs(program, n), order, 1e-9)) if repairing else None
    answer = ranking_at_most(program, relaxation, active, target, gap / 2, Budget(60), repair=repair)
    if values[0] <= target + 1e-9:
        assert answer.status == "found"
        assert objectives[tuple(answer.order.tolist())] <= target + 1e-9
    else:
        assert answer.status == "none"
    best = min(objectives, key=objectives.get)
    excluding = ranking_at_most(program, relaxation, active, max(target, objectives[best]), gap / 2, Budget(60),
                                other_than=np.asarray(best))
    others = [p for p, v in objectives.items() if p != best and v <= max(target, objectives[best]) + 1e-9]
    assert excluding.status == ("found" if others else "none")
    if others:
        assert tuple(excluding.order.tolist()) in others


@settings(deadline=None, max_examples=40)
@given(table=ballots(min_systems=2, max_systems=6, max_voters=5, missing=True))
def test_every_rankings_cost_is_on_the_lattice_its_lower_bound_rounds_to(table):
    _, costs = reference_costs(table)
    n = costs.shape[0]
    program = _Program.build(costs, 1.0)
    step = cost_step(costs)
    totals = [ranking_cost(costs, p) for p in itertools.permutations(range(n))]
    if step:
        assert all(abs((t - program.constant) / step - round((t - program.constant) / step)) < 1e-9 for t in totals)
        for bound in (min(totals) - 0.3 * step, min(totals) - step, min(totals)):
            rounded = program.lower_bound(bound - program.constant)
            assert rounded >= bound - 1e-9 and rounded - step < bound
            assert abs((rounded - program.constant) / step - round((rounded - program.constant) / step)) < 1e-9
    else:
        assert program.lower_bound(1.5) == pytest.approx(1.5 + program.constant)


def test_twenty_voters_who_rank_everything_give_even_steps():
    from benchmarks.bench_kemeny import mallows_ballots

    _, costs = reference_costs(mallows_ballots(6, 20, 0.98, seed=2))
    totals = {ranking_cost(costs, p) for p in itertools.permutations(range(6))}
    assert cost_step(costs) == 2.0
    assert len({t % 2 for t in totals}) == 1


@settings(deadline=None, max_examples=30)
@given(table=ballots(min_systems=2, max_systems=WINDOW, max_voters=5, missing=True), seed=st.integers(0, 99))
def test_local_search_with_one_window_over_every_system_is_exact(table, seed):
    _, costs = reference_costs(table)
    best, _ = brute_force(costs)
    start = np.random.default_rng(seed).permutation(costs.shape[0])
    assert ranking_cost(costs, list(improve(costs, start, 1e-9))) == pytest.approx(best, abs=1e-9)


def test_local_search_never_costs_more_than_its_start():
    rng = np.random.default_rng(4)
    costs = rng.integers(0, 9, size=(30, 30)).astype(float)
    np.fill_diagonal(costs, 0.0)
    start = rng.permutation(30)
    assert ranking_cost(costs, list(improve(costs, start, 1e-9))) <= ranking_cost(costs, list(start))


def random_costs(seed: int, n: int, weighted: bool) -> np.ndarray:
    """``C[x, y]`` of a few voters who each rank the systems at random (weights 0.5 to 2.5 when weighted)."""
    rng = np.random.default_rng(seed)
    positions = np.argsort(rng.random((5, n)), axis=1)
    weights = rng.choice([0.5, 1.0, 2.5], size=5) if weighted else np.ones(5)
    below = (positions[:, :, None] > positions[:, None, :]).astype(float)  # [v, x, y]: v puts x below y
    return np.einsum("v,vxy->xy", weights, below)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_climb_from_a_poor_ranking_and_a_weak_bound_reaches_the_dynamic_programs_optimum(weighted):
    from scorehouse.aggregators.kemeny import kemeny_order
    from scorehouse.aggregators.kemeny_ilp import _climb

    gaps = 0
    for seed in range(8):
        costs = random_costs(seed, 11, weighted)
        _, best, _ = kemeny_order(costs, 1e-9)
        program = _Program.build(costs, 1.0)
        # the relaxation without any 3-cycle row: the weakest bound, so every step is the climb's programs' work
        relaxation = OrderModel(program.objective).relax(60.0)
        start = program.lower_bound(relaxation.bound)
        gaps += start < best - 1e-9
        incumbent = _Incumbent(costs, 1e-9)
        incumbent.order = np.argsort(-costs.sum(axis=1), kind="stable")  # most disliked first: far from optimal
        incumbent.cost = ranking_cost(costs, list(incumbent.order))
        lower = _climb(program, relaxation, program.no_triples, Budget(60), start, incumbent)
        assert incumbent.cost == pytest.approx(best, abs=1e-9)
        assert ranking_cost(costs, list(incumbent.order)) == pytest.approx(best, abs=1e-9)
        assert lower == pytest.approx(best, abs=1e-9) if program.step else lower <= best + 1e-9
    assert gaps >= 4  # most start below the optimum: the climb's programs prove it
