"""What a Kemeny solver returns for one block of systems, and the cost of a ranking.

Apart from :mod:`aggregators.kemeny_ilp` (the integer program, which imports
``highspy``) so that the Kemeny method loads without the solver and pays for
it only when a block is too large for the dynamic program.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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


@dataclass
class Budget:
    """Seconds of CPU time of this process for a solve: the same work on a quiet and on a busy machine.

    A wall-clock limit proves less when other processes share the cores (the 300-system Mallows case
    took 33 s of CPU in 121 s of wall time at load 8).  The solver checks :meth:`spent` between its
    steps; a step inside HiGHS, which takes only a wall-clock limit, gets :meth:`wall_allowance`:
    the CPU seconds left at the share of a core this process has had so far.
    """

    seconds: float
    started_cpu: float = field(default_factory=time.process_time)
    started_wall: float = field(default_factory=time.monotonic)

    def used(self) -> float:
        return time.process_time() - self.started_cpu

    def remaining(self) -> float:
        return self.seconds - self.used()

    def spent(self) -> bool:
        return self.remaining() <= 0

    def wall_allowance(self) -> float:
        """Wall seconds that should give about :meth:`remaining` CPU seconds at this process's share so far
        (1 on a quiet machine; at least a tenth of a core is assumed, so a stalled start does not run long)."""
        wall = time.monotonic() - self.started_wall
        share = min(1.0, max(0.1, self.used() / wall)) if wall > 0.5 else 1.0
        return max(self.remaining(), 0.0) / share
