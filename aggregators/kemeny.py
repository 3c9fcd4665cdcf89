"""Exact Kemeny–Young consensus by dynamic programming over subsets.

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
``C`` over its ordered pairs.  The minimum is found exactly by the
Held–Karp-style recursion ``f(S) = min_{x in S} [sum_{y in S - x} C[x, y] +
f(S - x)]`` over the subsets ``S`` of systems (``f(S)``: best cost of ordering
``S`` among themselves, ``x`` on top), vectorised with NumPy over all subsets
of one size at a time: O(2^n n^2) work and O(2^n) memory, so at most
``MAX_SYSTEMS`` systems; beyond that use ``borda``.

Several rankings can be optimal.  The one returned is the first of them in
the alphabetical order of the systems: its top system is the alphabetically
first system that heads some optimal ranking, and so on down.  A note then
says how many optimal rankings there are.  The score is ``n - position``
(``n`` for the top system), so the ranking has no ties.
"""

from __future__ import annotations

import numpy as np

from aggregators.errors import TooManySystemsError
from aggregators.majority import majority
from aggregators.profile import Profile
from aggregators.registry import Scored, register

MAX_SYSTEMS = 20
# Costs are sums of float weights; two costs this close (relative to the total weight) are equal.
COST_TOLERANCE = 1e-9


def pair_costs(profile: Profile) -> np.ndarray:
    """``C[x, y]``: weighted disagreement of putting ``x`` directly or indirectly above ``y``."""
    counts = majority(profile)
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


@register(
    "kemeny",
    view="pairwise",
    handles_missing=True,
    citation=(
        "Kemeny (1959), Mathematics without numbers, Daedalus; Young and Levenglick (1978), A consistent "
        "extension of Condorcet's election principle, SIAM J. Appl. Math.; Colombo et al. (2022), What are "
        "the best systems? New perspectives on NLP benchmarking, NeurIPS"
    ),
    properties=("anonymous", "unanimity", "condorcet_consistent", "condorcet_loser"),
)
def kemeny(profile: Profile) -> Scored:
    """Exact Kemeny consensus (minimum weighted Kendall disagreement); score = n - position."""
    n = len(profile.systems)
    if n > MAX_SYSTEMS:
        raise TooManySystemsError(
            f"method 'kemeny' solves the exact consensus for at most {MAX_SYSTEMS} systems (its cost "
            f"doubles with every system) but the ballots have {n}; use 'borda', its approximation, "
            f"or rank a subset of the systems"
        )
    costs = pair_costs(profile)
    order, cost, optima = kemeny_order(costs, COST_TOLERANCE * max(float(profile.weights.sum()), 1.0))
    scores = np.empty(n)
    scores[order] = n - np.arange(n)
    notes = [f"minimum total weighted Kendall disagreement {cost:.6g}"]
    if optima > 1:
        notes.append(
            f"{optima:.0f} rankings reach the minimum; this one is the first in alphabetical order of the systems"
        )
    return Scored(scores, tuple(notes))
