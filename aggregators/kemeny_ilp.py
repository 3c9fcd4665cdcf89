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
Solved by HiGHS (Huangfu and Hall, 2018, "Parallelizing the dual revised
simplex method", Math. Prog. Comp.) through :func:`scipy.optimize.milp`.

The 3-cycle rows are added lazily by default: solve without them, add the rows
the solution violates, solve again, until the solution is a ranking; first for
the linear relaxation (cheap, and tight on most Kemeny instances), then for
the integer program.  Every optimum of a relaxation is a lower bound, rounded up
to the step every ranking's cost is a multiple of (1 for unweighted voters
without ties, 1/2 with ties).  Every
solution is also turned into a ranking and improved by local search (move one
system to its cheapest place); as soon as such a ranking costs no more than the
lower bound it is optimal and the search stops.  ``lazy=False`` gives all rows
at once (``benchmarks/bench_kemeny.py`` compares the two; see the README).

Under a :class:`aggregators.kemeny_order.Budget` of CPU seconds the answer is
the best ranking found, its cost, the best lower bound proven, and
``optimal=False`` unless the bound meets the ranking's cost (then it is proven
optimal however the budget ended).  HiGHS checks its time limit between steps,
so one long step can overrun it.  Uniqueness: if two
neighbours of the optimum are weighed equally by the voters, swapping them
gives another optimum; otherwise a second program finds the best ranking other
than the optimum (a no-good cut: at least one pair of neighbours in the
optimum reversed, since a ranking that keeps all of them is the optimum
itself), started from the 3-cycle rows the first one needed: the optimum is
unique iff that ranking costs more.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from scorehouse.aggregators.kemeny_order import Budget, OrderSolution, order_cost

# HiGHS stops at an absolute gap of 1e-6; costs are rescaled to a mean voter weight of 1 so that
# this gap is far below the smallest difference that one voter's half-tie can make.
SOLVER_OPTIONS = {"mip_rel_gap": 0.0, "presolve": True, "disp": False}
# A relaxation's solution may break a row by HiGHS's primal feasibility tolerance (1e-7) without violating it.
FEASIBILITY = 1e-6
# Relative slack when telling whether costs are whole steps and when rounding a bound up to one: far above
# float noise in sums of a few million pair costs, far below one step.
UNIT_SLACK = 1e-9
# Per pair variable, what HiGHS's optimality tolerance (1e-7) may add to a reported relaxation value, ten times over.
SOLVER_SLACK = 1e-6
# At most this many 3-cycle rows join the program per round: a near-random tournament of 700 systems breaks
# about 16 million, more than the solver can take at once; the most violated come first.
ROWS_PER_ROUND = 500_000


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
    unit: float  # every ranking's cost is a multiple of it (0 when the costs have no common step)
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
        return cls(objective, float(costs[second, first].sum()), scale, cost_unit(costs), first, second, pair_id)

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

    def rows(self, triples: np.ndarray) -> LinearConstraint:
        """``0 <= x_ij + x_jk - x_ik <= 1`` for the given triples."""
        m = triples.shape[0]
        matrix = csr_array(
            (np.tile([1.0, 1.0, -1.0], m), triples.ravel(), np.arange(0, 3 * m + 1, 3)),
            shape=(m, self.objective.size),
        )
        return LinearConstraint(matrix, 0.0, 1.0)

    def unscaled(self, objective_value: float) -> float:
        return objective_value / self.scale + self.constant

    def lower_bound(self, bound: float) -> float:
        """The ranking cost that a scaled ``bound`` of the objective proves: no ranking costs less, and every
        ranking's cost is a multiple of :attr:`unit`, so the bound rounds up to the next one (a relaxation
        that proves 208673.2 proves 208674 for integer costs: the optimum without its last integer program)."""
        value = self.unscaled(bound)
        if not self.unit or not np.isfinite(value):
            return value
        # HiGHS ends a solve with each reduced cost within its tolerance (1e-7) of optimal: the value it reports
        # may exceed the true bound by that much per variable (x in [0, 1]), which is taken off before rounding.
        slack = SOLVER_SLACK * self.objective.size / self.scale
        return float(np.ceil((value - slack) / self.unit - UNIT_SLACK * max(1.0, abs(value)))) * self.unit

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
    """The step every ranking's cost is a multiple of: 1 when the pair costs are whole numbers (unweighted
    voters, no ties), 1/2 when they are halves (ties count 1/2), else 0 (weighted voters: no common step)."""
    for unit in (1.0, 0.5):
        steps = costs / unit
        if np.all(np.abs(steps - np.round(steps)) <= UNIT_SLACK * np.maximum(1.0, np.abs(steps))):
            return unit
    return 0.0


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
    """Local search: move one system at a time to its cheapest place, until no move saves more than ``tolerance``."""
    order = np.asarray(order).copy()
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


class _Incumbent:
    """The best ranking found so far (improved by local search) and its cost."""

    def __init__(self, costs: np.ndarray, tolerance: float) -> None:
        self.costs, self.tolerance = costs, tolerance
        self.order = improve(costs, preference_order(costs), tolerance)
        self.cost = order_cost(costs, self.order)

    def offer(self, order: np.ndarray) -> None:
        order = improve(self.costs, order, self.tolerance)
        cost = order_cost(self.costs, order)
        if cost < self.cost - self.tolerance:
            self.order, self.cost = order, cost


@dataclass(frozen=True)
class _Outcome:
    status: str  # "optimal" or "timeout"
    x: np.ndarray | None  # last solution (a ranking when optimal)
    bound: float  # best scaled lower bound proven (-inf when none)
    active: np.ndarray  # (m, 3) pair ids of the triples whose 3-cycle rows the last program had


def _solve(
    program: _Program,
    budget: Budget,
    active: np.ndarray,
    extra: list[LinearConstraint],
    integral: bool = True,
    incumbent: _Incumbent | None = None,
) -> _Outcome:
    """Minimise over rankings (plus ``extra`` rows), adding violated 3-cycle rows until the solution is one.

    With ``integral=False`` it solves the linear relaxation instead (its rows are the cheap start of
    the integer program's: the relaxation of the 3-cycle rows is tight on most Kemeny instances).
    With an ``incumbent``, every solution is also turned into a ranking and offered to it, and the
    search stops as soon as the incumbent's cost meets the lower bound (it is then optimal).
    """
    bound, x = -np.inf, None
    n_vars = program.objective.size
    while True:
        if budget.spent():
            return _Outcome("timeout", x, bound, active)
        constraints = [program.rows(active), *extra] if len(active) else list(extra)
        result = milp(
            program.objective,
            integrality=np.full(n_vars, 1 if integral else 0),
            bounds=Bounds(0, 1),
            constraints=constraints,
            options={**SOLVER_OPTIONS, "time_limit": budget.wall_allowance()},
        )
        if result.x is not None:
            x = np.round(result.x) if integral else result.x
            if incumbent is not None:
                incumbent.offer(program.order_of(x, program.pair_id.shape[0]))
        if result.status != 0:
            dual = getattr(result, "mip_dual_bound", None)
            proven = max(bound, dual) if dual is not None and np.isfinite(dual) else bound
            return _Outcome("timeout", x, proven, active)
        bound = max(bound, float(result.fun))
        if incumbent is not None and incumbent.cost <= program.lower_bound(bound) + incumbent.tolerance:
            return _Outcome("optimal", program.pairs_of(incumbent.order), bound,
                            np.concatenate([active, program.triples_where(x)]))
        if budget.spent():  # finding the broken rows of a large block takes a while: not past it
            return _Outcome("timeout", x, bound, active)
        broken = program.triples_where(x)
        if not len(broken):
            return _Outcome("optimal", x, bound, active)
        active = np.concatenate([active, broken])  # x satisfies every active row: these are new


def _is_unique(program: _Program, costs: np.ndarray, order: np.ndarray, budget: Budget, active: np.ndarray,
               tolerance: float) -> bool | None:
    """Whether every other ranking costs more than ``order`` (None when the budget is spent first).

    Any other ranking reverses some pair of neighbours of ``order`` (one that keeps every neighbour
    pair is ``order`` itself), so the no-good cut needs only the n - 1 neighbour pairs.
    """
    above, below = order[:-1], order[1:]
    if np.any(np.abs(costs[above, below] - costs[below, above]) <= tolerance):
        return False  # swapping two neighbours that the voters weigh equally costs nothing
    pair = program.pair_id[np.minimum(above, below), np.maximum(above, below)]
    sign = np.where(above < below, 1.0, -1.0)  # agreement is x_p when the smaller index is above, else 1 - x_p
    cut = LinearConstraint(
        csr_array((sign, (np.zeros(pair.size, dtype=np.int64), pair)), shape=(1, program.objective.size)),
        -np.inf,
        pair.size - 1 - (sign < 0).sum(),
    )
    outcome = _solve(program, budget, active, [cut])
    if outcome.status == "timeout":
        return None
    runner_up = program.unscaled(float(program.objective @ outcome.x))
    return runner_up > order_cost(costs, order) + tolerance


def solve_order(
    costs: np.ndarray, *, budget: Budget, tolerance: float, mean_weight: float = 1.0, lazy: bool = True
) -> OrderSolution:
    """Minimum-cost ranking of ``costs`` (proven, or the best found within the CPU ``budget``).

    ``tolerance``: costs this close are equal (two rankings within it are both optimal).
    ``mean_weight``: the voters' mean weight, to rescale costs for the solver's absolute gap.
    """
    n = costs.shape[0]
    if n < 2:
        return OrderSolution(np.arange(n), 0.0, 0.0, True, True, 1.0)
    program = _Program.build(costs, 1.0 / mean_weight if mean_weight > 0 else 1.0)
    incumbent = _Incumbent(costs, tolerance)
    if lazy:
        relaxed = _solve(program, budget, program.no_triples, [], False, incumbent)
        outcome = relaxed
        if relaxed.status == "optimal" and incumbent.cost > program.lower_bound(relaxed.bound) + tolerance:
            outcome = _solve(program, budget, relaxed.active, [], True, incumbent)
        outcome = replace(outcome, bound=max(outcome.bound, relaxed.bound))
    else:
        outcome = _solve(program, budget, program.triples_where(None), [], True, incumbent)
    trivial = float(np.minimum(costs, costs.T)[np.triu_indices(n, 1)].sum())
    lower = max(trivial, program.lower_bound(outcome.bound)) if np.isfinite(outcome.bound) else trivial
    if outcome.status != "optimal":
        # the bound may meet the best ranking even so (the last step proved it, then the budget ran out)
        proven = incumbent.cost <= lower + tolerance
        return OrderSolution(incumbent.order, incumbent.cost, min(lower, incumbent.cost), proven, None)
    order = program.order_of(outcome.x, n)
    cost = order_cost(costs, order)
    unique = _is_unique(program, costs, order, budget, outcome.active, tolerance)
    return OrderSolution(order, cost, cost, True, unique)
