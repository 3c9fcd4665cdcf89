"""Minimum-cost strict ranking of a block of systems by integer programming.

The linear ordering problem: given ``C[x, y]``, the cost of ranking ``x``
above ``y``, find the strict ranking with the least total cost.  Formulation
of Grötschel, Jünger and Reinelt (1984), "A cutting plane algorithm for the
linear ordering problem", Operations Research 32(6), as used for Kemeny by
Conitzer, Davenport and Kalagnanam (2006), "Improved bounds for computing
Kemeny rankings", AAAI: one binary ``x_p`` per pair ``p = (i, j)``, ``i < j``
(1 when ``i`` is above ``j``; ``x_ji = 1 - x_ij`` is substituted, so the
pair constraints vanish), and for every triple ``i < j < k`` the two
3-cycle constraints ``x_ij + x_jk + x_ki <= 2`` and ``x_ik + x_kj + x_ji <= 2``,
which after substitution are one two-sided row ``0 <= x_ij + x_jk - x_ik <= 1``.
Solved by HiGHS through one model that keeps its basis across solves
(:mod:`aggregators.kemeny_highs`).

The 3-cycle rows are added lazily by default: solve the linear relaxation,
add the rows its solution violates, solve again from the last basis, until the
solution is a ranking or nothing is violated.  Every ranking's cost lies on a
lattice ``constant + step * k`` (``constant``: the cost when every ``x_p = 0``;
``step``: the greatest common divisor of the objective's coefficients, when the
pair costs are whole or half numbers; none for weighted voters), so every
bound rounds up to it.  The relaxation's bound usually stops a step or two
short of the best ranking.  The integer phase then climbs: "is there a
solution of cost at most the bound?" asked of HiGHS with that cutoff and with
the pairs that reduced-cost fixing and transitivity settle for it fixed
(:mod:`aggregators.kemeny_search`), so the program is a small part of the block's.  No such solution raises the bound by one step;
a solution that breaks 3-cycle rows adds them and asks again; a ranking is
optimal, since nothing cheaper exists.  Weighted voters have no lattice: the
question is then "is there a solution cheaper than the best ranking found?".

Every solution is also turned into a ranking and improved by local search
(move one system to its cheapest place; reorder each window of neighbours
optimally by the dynamic program), the incumbent; as soon as it costs no more
than the bound it is optimal.  ``lazy=False`` gives all rows at once
(``benchmarks/bench_kemeny.py`` compares the two: ``docs/performance.md``).

Under a :class:`aggregators.kemeny_order.Budget` of CPU seconds the answer is
the best ranking found, its cost, the best lower bound proven, and
``optimal=False`` unless the bound meets the ranking's cost (then it is proven
optimal however the budget ended).  HiGHS checks its time limit between steps,
so one long step can overrun it.  Uniqueness: if two neighbours of the
optimum are weighed equally by the voters, swapping them gives another
optimum; otherwise the same search asks for a solution of cost at most the
optimum's that differs from it (a no-good cut: at least one pair of neighbours
in the optimum reversed, since a ranking that keeps all of them is the optimum
itself): the optimum is unique iff there is none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_array

from scorehouse.aggregators.kemeny_highs import OrderModel, Relaxation
from scorehouse.aggregators.kemeny_order import Budget, OrderSolution, order_cost
from scorehouse.aggregators.kemeny_search import ranking_at_most

# A relaxation's solution may break a row by HiGHS's primal feasibility tolerance (1e-7) without violating it.
FEASIBILITY = 1e-6
# Relative slack when telling whether costs are whole steps and when rounding a bound up to one: far above
# float noise in sums of a few million pair costs, far below one step.
UNIT_SLACK = 1e-9
# At most this many 3-cycle rows join the program per round: a near-random tournament of 700 systems breaks
# about 16 million, more than the solver can take at once; the most violated come first.
ROWS_PER_ROUND = 500_000
# Local search reorders windows of this many neighbours, starting every WINDOW_STRIDE places, by the dynamic
# program: 8 costs 0.1 s a pass on 300 systems, 14 three seconds for the same result (docs/performance.md).
WINDOW = 8
WINDOW_STRIDE = 2


def preference_order(costs: np.ndarray) -> np.ndarray:
    """Systems by net pairwise preference (cost of being below minus cost of being above), ties by index."""
    net = costs.T.sum(axis=1) - costs.sum(axis=1)
    return np.argsort(-net, kind="stable")


@dataclass(frozen=True)
class _Program:
    """The pair variables, objective and 3-cycle rows of one block."""

    objective: np.ndarray  # per pair (i < j): scaled C[i, j] - C[j, i]
    constant: float  # sum over pairs of C[j, i]: the cost when every x_ij = 0
    scale: float
    step: float  # every ranking's cost is constant + step * k for a whole k (0: no common step)
    first: np.ndarray  # i of each pair
    second: np.ndarray  # j of each pair
    pair_id: np.ndarray  # (n, n): the variable of pair (i, j), i < j
    # The 3-cycle rows are not stored here: see :meth:`triples_where`.

    @classmethod
    def build(cls, costs: np.ndarray, scale: float) -> _Program:
        n = costs.shape[0]
        first, second = np.triu_indices(n, 1)
        pair_id = np.zeros((n, n), dtype=np.int64)
        pair_id[first, second] = np.arange(first.size)
        objective = (costs[first, second] - costs[second, first]) * scale
        return cls(objective, float(costs[second, first].sum()), scale, cost_step(costs), first, second, pair_id)

    @property
    def no_triples(self) -> np.ndarray:
        return np.zeros((0, 3), dtype=np.int64)

    def triples_where(self, x: np.ndarray | None) -> np.ndarray:
        """Pair ids ``(ij, jk, ik)`` of the triples ``i < j < k`` whose 3-cycle row ``x`` violates; all when None.

        Never materialises every triple (``n^3 / 6`` of them: 57 million for 700 systems): one
        system ``i`` at a time, vectorised over the pairs ``j < k`` below it.  Of the violated rows
        at most :data:`ROWS_PER_ROUND` are returned, the most violated (ties in triple order): the
        rest are found again in later rounds if the next solution still breaks them.  The rows kept
        while searching are pruned to that many whenever they reach twice as many, so memory stays
        bounded whatever the number of violated rows.
        """
        n = self.pair_id.shape[0]
        above = np.zeros((n, n))
        if x is not None:
            above[self.first, self.second] = x
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        found, excess = [self.no_triples], [np.zeros(0)]
        kept = 0
        for i in range(n - 2):
            below = upper[i + 1 :, i + 1 :]
            chosen, by = (np.flatnonzero(below), None) if x is None else _violated(above, i, below)
            j, k = np.divmod(chosen, n - i - 1)
            j, k = j + i + 1, k + i + 1
            found.append(np.stack([self.pair_id[i, j], self.pair_id[j, k], self.pair_id[i, k]], axis=1))
            if by is not None:
                excess.append(by)
                kept += by.size
                if kept >= 2 * ROWS_PER_ROUND:
                    found, excess = _most_violated(found, excess)
                    kept = excess[0].size
        return np.concatenate(found) if x is None else _most_violated(found, excess)[0][0]

    def add_rows(self, model: OrderModel, triples: np.ndarray) -> None:
        """``0 <= x_ij + x_jk - x_ik <= 1`` for the given triples."""
        m = triples.shape[0]
        matrix = csr_array(
            (np.tile([1.0, 1.0, -1.0], m), triples.ravel(), np.arange(0, 3 * m + 1, 3)),
            shape=(m, self.objective.size),
        )
        model.add_rows(matrix, np.zeros(m), np.ones(m))

    def unscaled(self, objective_value: float) -> float:
        return objective_value / self.scale + self.constant

    def scaled(self, cost: float) -> float:
        return (cost - self.constant) * self.scale

    def lower_bound(self, bound: float) -> float:
        """The ranking cost that a scaled ``bound`` of the objective proves: no ranking costs less, and every
        ranking's cost is on the lattice of :attr:`step`, so the bound rounds up to it (a relaxation that
        proves 208671.45 proves 208672 when every ranking's cost is even)."""
        value = self.unscaled(bound)
        if not self.step or not np.isfinite(value):
            return value
        steps = (value - self.constant) / self.step
        return self.constant + float(np.ceil(steps - UNIT_SLACK * max(1.0, abs(value) / self.step))) * self.step

    def order_of(self, x: np.ndarray, n: int) -> np.ndarray:
        """Systems by how many others ``x`` puts them above (a ranking when ``x`` is transitive)."""
        above = np.zeros((n, n))
        above[self.first, self.second] = x
        above[self.second, self.first] = 1 - x
        return np.argsort(-above.sum(axis=1), kind="stable")

    def pairs_of(self, order: np.ndarray) -> np.ndarray:
        """The 0/1 pair vector of a ranking."""
        position = np.empty(order.size, dtype=np.int64)
        position[order] = np.arange(order.size)
        return (position[self.first] < position[self.second]).astype(float)


def cost_unit(costs: np.ndarray) -> float:
    """The step every pair cost is a multiple of: 1 when the pair costs are whole numbers (unweighted
    voters, no ties), 1/2 when they are halves (ties count 1/2), else 0 (weighted voters: no common step)."""
    for unit in (1.0, 0.5):
        steps = costs / unit
        if np.all(np.abs(steps - np.round(steps)) <= UNIT_SLACK * np.maximum(1.0, np.abs(steps))):
            return unit
    return 0.0


def cost_step(costs: np.ndarray) -> float:
    """The lattice step of ranking costs: a ranking costs ``sum C[j, i]`` over pairs ``i < j`` plus, for each
    pair it puts ``i`` above ``j``, ``C[i, j] - C[j, i]``; when those differences are whole multiples of the
    :func:`cost_unit`, every ranking's cost moves by multiples of their greatest common divisor (20 voters
    who all rank every system: always even)."""
    unit = cost_unit(costs)
    if not unit:
        return 0.0
    first, second = np.triu_indices(costs.shape[0], 1)
    multiples = np.abs(np.round((costs[first, second] - costs[second, first]) / unit)).astype(np.int64)
    divisor = int(np.gcd.reduce(multiples)) if multiples.size else 0
    return unit * (divisor or 1)


def _violated(above: np.ndarray, i: int, below: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices into ``below`` of the pairs ``j < k`` (both after ``i``) whose row ``x`` breaks, and by how much."""
    row = above[i, i + 1 :]
    # 0 <= x_ij + x_jk - x_ik <= 1, i.e. |x_ij + x_jk - x_ik - 1/2| <= 1/2
    value = above[i + 1 :, i + 1 :] + (row[:, None] - row[None, :] - 0.5)
    excess = np.where(below, np.abs(value, out=value) - 0.5, 0.0).ravel()
    chosen = np.flatnonzero(excess > FEASIBILITY)
    return chosen, excess[chosen]


def _most_violated(found: list[np.ndarray], excess: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The at most :data:`ROWS_PER_ROUND` most violated of ``found`` rows (ties in their order), in their order."""
    rows, by = np.concatenate(found), np.concatenate(excess)
    if by.size > ROWS_PER_ROUND:
        keep = np.sort(np.argsort(-by, kind="stable")[:ROWS_PER_ROUND])
        rows, by = rows[keep], by[keep]
    return [rows], [by]

def improve(costs: np.ndarray, order: np.ndarray, tolerance: float) -> np.ndarray:
    """Local search: move one system to its cheapest place, and put each window of :data:`WINDOW`
    neighbours in its best order, until neither saves more than ``tolerance``."""
    order = np.asarray(order).copy()
    cost = order_cost(costs, order)
    while True:
        order = _windows(costs, _insertions(costs, order, tolerance), tolerance)
        before, cost = cost, order_cost(costs, order)
        if cost >= before - tolerance:
            return order


def _insertions(costs: np.ndarray, order: np.ndarray, tolerance: float) -> np.ndarray:
    """Move one system at a time to its cheapest place, until no move saves more than ``tolerance``."""
    improved = True
    while improved:
        improved = False
        for item in order.copy():  # one pass over the systems; each move is vectorised over places
            place = int(np.flatnonzero(order == item)[0])
            others = np.delete(order, place)
            # cost of the pairs of ``item`` when inserted before others[q]: others above it, then below it
            above = np.concatenate([[0.0], np.cumsum(costs[others, item])])
            below = np.concatenate([np.cumsum(costs[item, others][::-1])[::-1], [0.0]])
            total = above + below
            best = int(np.argmin(total))
            if total[best] < total[place] - tolerance:
                order = np.insert(others, best, item)
                improved = True
    return order


def _windows(costs: np.ndarray, order: np.ndarray, tolerance: float) -> np.ndarray:
    """Each window of :data:`WINDOW` neighbours (overlapping, top to bottom) in its optimal order.

    Reordering a window changes only the pairs inside it, so the dynamic program on the window's
    costs gives its best order; moves that a single insertion cannot make (a 208,678 ranking of the
    300-system Mallows block becomes the optimum, 208,674, in 0.13 s).
    """
    from scorehouse.aggregators.kemeny import kemeny_order  # the dynamic program (kemeny imports this module lazily)

    order = order.copy()
    last = max(order.size - WINDOW, 0)
    for start in sorted({*range(0, last + 1, WINDOW_STRIDE), last}):
        window = order[start : start + WINDOW]
        inside = costs[np.ix_(window, window)]
        best, cost, _ = kemeny_order(inside, tolerance)
        if cost < order_cost(inside, np.arange(window.size)) - tolerance:
            order[start : start + WINDOW] = window[best]
    return order


class _Incumbent:
    """The best ranking found so far (improved by local search) and its cost."""

    def __init__(self, costs: np.ndarray, tolerance: float) -> None:
        self.costs, self.tolerance = costs, tolerance
        self.order = improve(costs, preference_order(costs), tolerance)
        self.cost = order_cost(costs, self.order)

    def improved(self, order: np.ndarray) -> np.ndarray:
        return improve(self.costs, order, self.tolerance)

    def offer(self, order: np.ndarray) -> None:
        order = self.improved(order)
        cost = order_cost(self.costs, order)
        if cost < self.cost - self.tolerance:
            self.order, self.cost = order, cost




def _relax(program: _Program, model: OrderModel, budget: Budget, incumbent: _Incumbent,
           active: np.ndarray) -> tuple[Relaxation | None, np.ndarray]:
    """The linear relaxation with every 3-cycle row its solutions break (None when the budget ends first),
    and the triples of its rows (``active``: those the model starts with)."""
    relaxation = None
    while not budget.spent():
        solved = model.relax(budget.wall_allowance())
        if solved is None:
            break
        relaxation = solved
        incumbent.offer(program.order_of(solved.x, program.pair_id.shape[0]))
        if incumbent.cost <= program.lower_bound(solved.bound) + incumbent.tolerance or budget.spent():
            break
        broken = program.triples_where(solved.x)
        if not len(broken):
            break
        program.add_rows(model, broken)
        active = np.concatenate([active, broken])
    return relaxation, active


def _climb(program: _Program, relaxation: Relaxation, active: np.ndarray, budget: Budget, lower: float,
           incumbent: _Incumbent) -> float:
    """Raise the proven lower bound until it meets the incumbent (or the budget ends); returns the bound."""
    while incumbent.cost > lower + incumbent.tolerance and not budget.spent():
        # on the lattice no ranking lies strictly between two points: ask at the bound itself, else below the incumbent
        target = lower if program.step else incumbent.cost - incumbent.tolerance
        margin = program.step or incumbent.tolerance / 2
        answer = ranking_at_most(program, relaxation, active, program.scaled(target), margin * program.scale, budget,
                                 repair=incumbent.improved)
        if answer.status == "undecided":
            break
        if answer.status == "found":
            incumbent.offer(answer.order)
        else:  # nothing costs target or less
            lower = target + program.step if program.step else incumbent.cost
    return lower


def _is_unique(program: _Program, relaxation: Relaxation, active: np.ndarray, costs: np.ndarray, order: np.ndarray,
               budget: Budget, tolerance: float) -> bool | None:
    """Whether every other ranking costs more than the optimum ``order`` (None when the budget is spent first)."""
    above, below = order[:-1], order[1:]
    if np.any(np.abs(costs[above, below] - costs[below, above]) <= tolerance):
        return False  # swapping two neighbours that the voters weigh equally costs nothing
    if budget.spent():
        return None
    # another optimum costs at most the optimum's cost plus the tolerance within which costs are equal
    target = program.scaled(order_cost(costs, order) + tolerance)
    margin = (program.step or tolerance) * program.scale
    answer = ranking_at_most(program, relaxation, active, target, margin, budget, other_than=order)
    return None if answer.status == "undecided" else answer.status == "none"


def solve_order(
    costs: np.ndarray, *, budget: Budget, tolerance: float, mean_weight: float = 1.0, lazy: bool = True
) -> OrderSolution:
    """Minimum-cost ranking of ``costs`` (proven, or the best found within the CPU ``budget``).

    ``tolerance``: costs this close are equal (two rankings within it are both optimal).
    ``mean_weight``: the voters' mean weight, to rescale costs to the solver's tolerances.
    """
    n = costs.shape[0]
    if n < 2:
        return OrderSolution(np.arange(n), 0.0, 0.0, True, True, 1.0)
    program = _Program.build(costs, 1.0 / mean_weight if mean_weight > 0 else 1.0)
    incumbent = _Incumbent(costs, tolerance)
    model = OrderModel(program.objective)
    active = program.no_triples if lazy else program.triples_where(None)
    if len(active):
        program.add_rows(model, active)
    lower = float(np.minimum(costs, costs.T)[np.triu_indices(n, 1)].sum())
    relaxation, active = _relax(program, model, budget, incumbent, active)
    if relaxation is not None:
        lower = max(lower, program.lower_bound(relaxation.bound))
        lower = _climb(program, relaxation, active, budget, lower, incumbent)
    if incumbent.cost > lower + tolerance:
        return OrderSolution(incumbent.order, incumbent.cost, min(lower, incumbent.cost), False, None)
    unique = None if relaxation is None else _is_unique(
        program, relaxation, active, costs, incumbent.order, budget, tolerance
    )
    return OrderSolution(incumbent.order, incumbent.cost, incumbent.cost, True, unique)
