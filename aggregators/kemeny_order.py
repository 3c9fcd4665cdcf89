"""What a Kemeny solver returns for one block of systems, and the cost of a ranking.

Apart from :mod:`aggregators.kemeny_ilp` (the integer program, which imports
``scipy.optimize``) so that the Kemeny method loads without scipy's solvers
and pays for them only when a block is too large for the dynamic program.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OrderSolution:
    """The ranking of one block: indices best first, its cost, and what is proven about it."""

    order: np.ndarray
    cost: float
    lower_bound: float
    optimal: bool
    unique: bool | None  # None when the deadline came before it was decided
    optima: float | None = None  # how many rankings are optimal, when counted (the dynamic program counts)


def order_cost(costs: np.ndarray, order: np.ndarray) -> float:
    """Total cost of a ranking (indices best first): ``C[x, y]`` summed over every ``x`` above ``y``."""
    return float(np.triu(costs[np.ix_(order, order)], 1).sum())
