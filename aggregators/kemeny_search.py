"""Is there a ranking of cost at most a target?  Asked of a small integer program.

Given a linear relaxation of the ordering program and its duals
(:class:`aggregators.kemeny_highs.Relaxation`), every ranking of objective at
most ``target`` keeps the pairs that reduced-cost fixing settles for that
target.  A ranking is transitive, so it also keeps every pair that these imply
(the transitive closure of the settled relation, by Boolean matrix squaring);
a cycle among them means no such ranking exists.  The pairs left free are the
program's only variables (the 300-system Mallows block: 2,500 of 44,850 at its
relaxation's bound).

A 3-cycle row of a triple with at most one free pair holds for either value of
it (its settled pairs are transitive and acyclic, and if the triple's two
settled pairs implied the third, that pair would be settled too), so only the
triples with two or three free pairs need rows (settled pairs moved to the row
bounds).  They start as those the relaxation needed and grow lazily: a
solution that is not a ranking adds the rows it breaks and the program is
solved again.  A program with no solution at most ``target`` proves that no
ranking has one.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_array, vstack

from scorehouse.aggregators.kemeny_highs import Relaxation, find_binary
from scorehouse.aggregators.kemeny_order import Budget

if TYPE_CHECKING:
    from scorehouse.aggregators.kemeny_ilp import _Program


@dataclass(frozen=True)
class Answer:
    status: str  # "found", "none" (proven: no ranking of cost at most the target) or "undecided"
    order: np.ndarray | None = None


def settled_above(program: _Program, relaxation: Relaxation, target: float) -> np.ndarray | None:
    """``above[i, j]``: every ranking of objective at most ``target`` puts ``i`` above ``j`` (None: there is none)."""
    n = program.pair_id.shape[0]
    at_zero, at_one = relaxation.fixed_at(target)
    above = np.zeros((n, n), dtype=bool)
    above[program.first[at_one], program.second[at_one]] = True
    above[program.second[at_zero], program.first[at_zero]] = True
    while True:  # squaring: paths of length 2, 4, 8 ...; float32 counts are exact below 2^24 systems
        reach = above.astype(np.float32)
        closed = above | ((reach @ reach) > 0)
        if np.array_equal(closed, above):
            break
        above = closed
    return None if np.any(above & above.T) else above


def ranking_at_most(program: _Program, relaxation: Relaxation, rows_known: np.ndarray, target: float,
                    margin: float, budget: Budget, other_than: np.ndarray | None = None,
                    repair: Callable[[np.ndarray], np.ndarray] | None = None) -> Answer:
    """A ranking of objective at most ``target`` (scaled units), or the proof that none exists.

    ``rows_known``: pair ids ``(ij, jk, ik)`` of the triples whose rows to start from.
    ``margin``: no ranking's objective lies in ``(target, target + margin]``.  ``other_than``: a
    ranking to exclude (no-good cut on its neighbour pairs; any other ranking reverses one of them).
    ``repair``: local search that turns the ranking nearest a solution that breaks rows into a better
    one; when that costs at most ``target`` it is the answer, without another program.
    """
    above = settled_above(program, relaxation, target)
    if above is None:
        return Answer("none")
    first, second = program.first, program.second
    settled = above[first, second] | above[second, first]
    value = above[first, second].astype(float)  # x_p of a settled pair
    free_ids = np.flatnonzero(~settled)
    cut = None if other_than is None else _no_good(program, other_than, settled)
    if cut is not None and not cut[0].size:  # every neighbour pair settled as in other_than: it is the only one
        return Answer("none")
    if free_ids.size == 0:  # one candidate left: the settled order, if it costs at most target
        cheap_enough = program.objective @ value <= target + margin / 4
        return Answer("found", program.order_of(value, above.shape[0])) if cheap_enough else Answer("none")
    column = np.full(first.size, -1, dtype=np.int64)
    column[free_ids] = np.arange(free_ids.size)
    triples = rows_known[(~settled[rows_known]).sum(axis=1) >= 2]
    while not budget.spent():
        rows, lower, upper = _rows(triples, settled, value, column, free_ids.size)
        if cut is not None:
            pairs, sign = cut
            rows = csr_array(vstack([rows, csr_array(
                (sign, (np.zeros(pairs.size, dtype=np.int64), column[pairs])), shape=(1, free_ids.size))]))
            lower, upper = np.append(lower, -np.inf), np.append(upper, pairs.size - 1.0 - (sign < 0).sum())
        offset = float(program.objective[settled] @ value[settled])
        found = find_binary(program.objective[free_ids], rows, lower, upper, target - offset, margin,
                            budget.wall_allowance())
        if found.status != "found":
            return Answer("none" if found.status == "none" else "undecided")
        value[free_ids] = found.x
        broken = program.triples_where(value)
        if not len(broken):
            return Answer("found", program.order_of(value, above.shape[0]))
        if repair is not None:
            repaired = repair(program.order_of(value, above.shape[0]))
            if program.objective @ program.pairs_of(repaired) <= target + margin / 4:
                return Answer("found", repaired)
        triples = np.concatenate([triples, broken])  # each has two or more free pairs (see above)
    return Answer("undecided")


def _rows(triples: np.ndarray, settled: np.ndarray, value: np.ndarray, column: np.ndarray,
          n_free: int) -> tuple[csr_array, np.ndarray, np.ndarray]:
    """``0 <= x_ij + x_jk - x_ik <= 1`` over the free pairs, the settled ones' part moved to the bounds."""
    coefficient = np.tile([1.0, 1.0, -1.0], (triples.shape[0], 1))
    known = (coefficient * np.where(settled[triples], value[triples], 0.0)).sum(axis=1)
    loose = ~settled[triples]
    rows = csr_array((coefficient[loose], (np.nonzero(loose)[0], column[triples[loose]])),
                     shape=(triples.shape[0], n_free))
    return rows, -known, 1.0 - known


def _no_good(program: _Program, order: np.ndarray, settled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The free neighbour pairs of ``order`` and the sign of agreement with it (+1: x_p, -1: 1 - x_p).

    Its settled neighbour pairs agree with it (it costs at most the target), so another ranking
    reverses a free one: the cut is ``sum of agreements <= (free neighbour pairs) - 1``.
    """
    above, below = order[:-1], order[1:]
    pairs = program.pair_id[np.minimum(above, below), np.maximum(above, below)]
    free = ~settled[pairs]
    return pairs[free], np.where(above[free] < below[free], 1.0, -1.0)
