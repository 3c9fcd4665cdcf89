"""Exact Kemeny–Young consensus: majority-graph blocks, each by dynamic programming or integer programming.

Kemeny (1959), "Mathematics without numbers", Daedalus; Young and Levenglick
(1978), "A consistent extension of Condorcet's election principle", SIAM J.
Appl. Math.; the consensus that Colombo et al. (2022, "What are the best
systems? New perspectives on NLP benchmarking", NeurIPS) approximate with
Borda.

The consensus is the strict ranking of the systems that minimises the total
weighted Kendall disagreement with the voters.  For a ranking that puts ``x``
above ``y`` each voter ``v`` adds, times its weight:

* 1 if it scored both and gave ``y`` the higher score (a discordant pair);
* 1/2 if it scored both and gave them the same score (a tie is half-way
  between the two orders, whichever way the ranking goes);
* 0 if it scored ``x`` above ``y``, or did not score both (it has no opinion
  on the pair: missing scores are handled).

So putting ``x`` above ``y`` costs ``C[x, y] = wins[y, x] + ties[x, y] / 2``
with the counts of :mod:`aggregators.majority`, and a ranking costs the sum of
``C`` over its ordered pairs.

The systems are first split into the blocks of
:mod:`aggregators.majority_components` (every system of a block strictly beats
every system of the blocks below it), whose order every optimal ranking
keeps; the optimal rankings are exactly the concatenations of optimal
rankings of the blocks, so the optimum is unique iff every block's is.  A
block of at most ``DP_MAX_SYSTEMS`` systems is solved by the Held–Karp-style
recursion ``f(S) = min_{x in S} [sum_{y in S - x} C[x, y] + f(S - x)]`` over
its subsets ``S`` (``f(S)``: best cost of ordering ``S`` among themselves,
``x`` on top), vectorised with NumPy over all subsets of one size at a time
(O(2^n n^2) work), which also counts the optimal rankings.  A larger block is
solved by integer programming (:mod:`aggregators.kemeny_ilp`), which proves
the optimum and decides whether it is unique.  ``time_limit`` seconds of CPU
time (:class:`aggregators.kemeny_order.Budget`: the same work on a busy machine
as on a quiet one) bound the integer programs of all blocks together; when it
runs out the ranking is the best one found (the net preference order, then
every relaxation's and program's solution, each improved by local search)
and the notes give its lower bound and gap.

Several rankings can be optimal.  Within a block solved by the dynamic
program the ranking returned is the first optimal one in the alphabetical
order of the systems (its top system is the alphabetically first system that
heads some optimal ranking, and so on down); when every block is, that is the
alphabetically first optimal ranking overall, and a note says how many there
are.  Within a block solved by integer programming it is the solver's
optimum, which is the same for the same ballots but not necessarily the
alphabetically first; a note then says that several rankings are optimal.
The score is ``n - position`` (``n`` for the top system), so the ranking has
no ties.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.kemeny_order import Budget, OrderSolution, order_cost
from scorehouse.aggregators.majority import Majority, majority
from scorehouse.aggregators.majority_components import majority_blocks
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.parameters import check_range
from scorehouse.aggregators.registry import Scored, register

# Blocks up to this size go to the dynamic program: it keeps the alphabetical tie-break and counts the
# optima, and below this size it is as fast as the integer program (benchmarks/bench_kemeny.py).
DP_MAX_SYSTEMS = 16
# Costs are sums of float weights; two costs this close (relative to the total weight) are equal.
COST_TOLERANCE = 1e-9


def pair_costs(counts: Majority) -> np.ndarray:
    """``C[x, y]``: weighted disagreement of putting ``x`` directly or indirectly above ``y``."""
    return counts.wins.T + counts.ties / 2.0


def _subset_layers(n: int) -> list[np.ndarray]:
    """All bit masks of ``n`` systems, grouped by their number of members (layer k = size k)."""
    masks = np.arange(1 << n, dtype=np.int64)
    sizes = np.zeros(1 << n, dtype=np.int64)
    for bit in range(n):  # popcount one bit at a time: O(2^n) memory
        sizes += (masks >> bit) & 1
    order = np.argsort(sizes, kind="stable")
    bounds = np.searchsorted(sizes[order], np.arange(n + 2))
    return [order[bounds[k] : bounds[k + 1]] for k in range(n + 1)]


def optimal_costs(costs: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """``f`` and the number of optimal orderings of every subset (indexed by bit mask)."""
    n = costs.shape[0]
    best = np.zeros(1 << n)
    count = np.ones(1 << n)
    bits = np.arange(n)
    for layer in _subset_layers(n)[1:]:
        member = ((layer[:, None] >> bits) & 1).astype(bool)
        # above[m, x] = sum of C[x, y] over the members y of mask m (C[x, x] = 0)
        above = member.astype(float) @ costs.T
        rest = layer[:, None] ^ (1 << bits)
        candidates = np.where(member, above + best[np.where(member, rest, 0)], np.inf)
        minimum = candidates.min(axis=1)
        optimal = candidates <= minimum[:, None] + tolerance
        best[layer] = minimum
        count[layer] = np.where(optimal, count[np.where(member, rest, 0)], 0.0).sum(axis=1)
    return best, count


def kemeny_order(costs: np.ndarray, tolerance: float) -> tuple[list[int], float, float]:
    """Alphabetically first optimal order (indices, best first), its cost and the number of optima."""
    n = costs.shape[0]
    best, count = optimal_costs(costs, tolerance)
    full = (1 << n) - 1
    order: list[int] = []
    mask = full
    while mask:
        members = [x for x in range(n) if mask >> x & 1]
        for x in members:  # members in index order = alphabetical order of the systems
            rest = mask ^ (1 << x)
            value = costs[x, members].sum() + best[rest]
            if value <= best[mask] + tolerance:
                order.append(x)
                mask = rest
                break
    return order, float(best[full]), float(count[full])


def solve_block(costs: np.ndarray, *, budget: Budget, tolerance: float, mean_weight: float) -> OrderSolution:
    """Optimal ranking of one block: the dynamic program when small, else the integer program."""
    if costs.shape[0] > DP_MAX_SYSTEMS:
        from scorehouse.aggregators.kemeny_ilp import solve_order  # scipy.optimize: loaded only for an integer program

        return solve_order(costs, budget=budget, tolerance=tolerance, mean_weight=mean_weight)
    order, cost, optima = kemeny_order(costs, tolerance)
    return OrderSolution(np.asarray(order, dtype=np.int64), cost, cost, True, optima == 1, optima)


def _uniqueness_note(blocks: list[OrderSolution]) -> str:
    if all(b.optima is not None for b in blocks):
        optima = float(np.prod([b.optima for b in blocks]))
        if optima == 1:
            return "the optimal ranking is unique"
        return f"{optima:.0f} rankings reach the minimum; this one is the first in alphabetical order of the systems"
    if any(b.unique is False for b in blocks):
        at_least = float(np.prod([b.optima or (1 if b.unique else 2) for b in blocks]))
        return (
            f"at least {at_least:.0f} rankings reach the minimum; this one is the first in alphabetical order "
            f"within the blocks of at most {DP_MAX_SYSTEMS} systems, the integer program's within larger ones"
        )
    if any(b.unique is None for b in blocks):
        return "whether the optimal ranking is unique was not decided within the time limit"
    return "the optimal ranking is unique"


@register(
    "kemeny",
    view="pairwise",
    handles_missing=True,
    citation=(
        "Kemeny (1959), Mathematics without numbers, Daedalus; Young and Levenglick (1978), A consistent "
        "extension of Condorcet's election principle, SIAM J. Appl. Math.; Conitzer, Davenport and Kalagnanam "
        "(2006), Improved bounds for computing Kemeny rankings, AAAI; Colombo et al. (2022), What are "
        "the best systems? New perspectives on NLP benchmarking, NeurIPS"
    ),
    properties=("anonymous", "unanimity", "condorcet_consistent", "condorcet_loser"),
)
def kemeny(profile: Profile, *, time_limit: float = 60.0) -> Scored:
    """Exact Kemeny consensus (minimum weighted Kendall disagreement); score = n - position."""
    check_range("kemeny", "time_limit", time_limit, low=0.0)
    budget = Budget(time_limit)
    n = len(profile.systems)
    counts = majority(profile)
    costs = pair_costs(counts)
    total_weight = float(profile.weights.sum())
    tolerance = COST_TOLERANCE * max(total_weight, 1.0)
    mean_weight = total_weight / max(len(profile.voters), 1)
    blocks = majority_blocks(counts.beats)
    solved = [
        solve_block(costs[np.ix_(b, b)], budget=budget, tolerance=tolerance, mean_weight=mean_weight)
        for b in blocks
    ]
    order = np.concatenate([b[s.order] for b, s in zip(blocks, solved, strict=True)]) if n else np.zeros(0, int)
    cost = order_cost(costs, order)
    scores = np.empty(n)
    scores[order] = n - np.arange(n)
    largest = max((len(b) for b in blocks), default=0)
    by_program = sum(len(b) > DP_MAX_SYSTEMS for b in blocks)
    split = (
        f"{len(blocks)} block(s) of the majority graph, the largest of {largest} systems; "
        f"{by_program} solved by integer programming"
    )
    if all(s.optimal for s in solved):
        notes = [f"minimum total weighted Kendall disagreement {cost:.6g}", _uniqueness_note(solved), split]
    else:
        lower = cost - sum(s.cost - s.lower_bound for s in solved)
        gap = (cost - lower) / cost if cost > 0 else 0.0
        notes = [
            f"total weighted Kendall disagreement {cost:.6g}, not proven minimal: the time limit of {time_limit:g} s "
            f"of CPU ran out; lower bound {lower:.6g}, gap {100 * gap:.2g} %",
            split,
        ]
    return Scored(scores, tuple(notes))
