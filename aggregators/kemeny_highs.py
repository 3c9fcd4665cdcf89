"""One block's linear ordering program as one HiGHS model, kept across all its solves.

HiGHS (Huangfu and Hall, 2018, "Parallelizing the dual revised simplex method",
Math. Prog. Comp.) through ``highspy``, its own Python package: 3-cycle rows
join the same model as they are found, so each linear relaxation restarts from
the last optimal basis (a few dual simplex iterations) instead of from scratch,
which is all that :func:`scipy.optimize.milp` offers (a 300-system block:
2 s of CPU for the relaxations instead of 20 s, ``docs/performance.md``).

Two proofs are computed here rather than read from the solver:

* The lower bound of a relaxation comes from its row duals ``y`` alone: for
  every ``x`` in ``[0, 1]^n`` with ``lower <= A x <= upper``, ``c x = y A x + d x``
  with ``d = c - A^T y``, and each term is at least its minimum over the box,
  so ``c x >= sum_i min(y_i lower_i, y_i upper_i) + sum_j min(0, d_j)`` (the
  Lagrangian bound).  It holds for any ``y``; HiGHS's optimal duals make it the
  relaxation's optimum, and tolerances inside the solver cannot make it wrong.
* The same inequality says more: ``c x >= bound + sum_j |d_j| dist_j(x)``,
  where ``dist_j`` is how far ``x_j`` is from the end of ``[0, 1]`` that ``d_j``
  favours.  A 0/1 solution that costs at most ``target`` therefore keeps every
  ``x_j`` with ``|d_j| > target - bound`` at that end (reduced-cost fixing,
  e.g. Nemhauser and Wolsey, 1988, "Integer and Combinatorial Optimization",
  II.5.1): fixed before each integer search, these columns leave the program.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np
from scipy.sparse import csr_array, vstack

# HiGHS's code for a solution status of "feasible".
FEASIBLE = 2
# Safety margin of the fixing test, in objective units: far above float noise in a sum of 10^5 terms.
FIXING_MARGIN = 1e-7


@dataclass(frozen=True)
class Relaxation:
    """An optimal solution of the linear relaxation with the model's rows, and what its duals prove."""

    x: np.ndarray
    bound: float  # the Lagrangian bound: no x in [0, 1]^n satisfying these rows has a lower objective
    reduced: np.ndarray  # d = c - A^T y: a solution that moves x_j off d_j's end pays |d_j| more

    def fixed_at(self, target: float) -> tuple[np.ndarray, np.ndarray]:
        """Masks of the columns every solution of objective at most ``target`` has at 0, and at 1."""
        slack = target - self.bound + FIXING_MARGIN
        return self.reduced > slack, self.reduced < -slack


@dataclass(frozen=True)
class Search:
    """The outcome of an integer search for a solution of objective at most a target."""

    status: str  # "found" (x has objective <= target), "none" (proven: no such solution) or "timeout"
    x: np.ndarray | None = None


def exact_solver() -> highspy.Highs:
    """A silent HiGHS that stops only at a proven optimum (no relative or absolute gap allowed)."""
    highs = highspy.Highs()
    for option, value in (("output_flag", False), ("mip_rel_gap", 0.0), ("mip_abs_gap", 0.0)):
        highs.setOptionValue(option, value)
    return highs


def unit_box(objective: np.ndarray, n_rows: int) -> highspy.HighsLp:
    """A model of ``objective`` over ``[0, 1]^n`` with ``n_rows`` rows (their bounds and matrix set by the caller)."""
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = objective.size, n_rows
    model.col_cost_ = objective
    model.col_lower_, model.col_upper_ = np.zeros(objective.size), np.ones(objective.size)
    return model


def find_binary(objective: np.ndarray, rows: csr_array, lower: np.ndarray, upper: np.ndarray, target: float,
                  margin: float, wall_seconds: float) -> Search:
    """A 0/1 ``x`` with ``lower <= rows x <= upper`` and ``objective x <= target``, or the proof there is none.

    ``margin``: no solution's objective lies in ``(target, target + margin]`` (the next point of the
    cost lattice is further), so HiGHS gets its cutoff (``objective_bound``) half-way there: a solution
    at ``target`` is never pruned, and a search that ends with none at most ``target`` proves there is none.
    """
    highs = exact_solver()
    highs.setOptionValue("objective_bound", float(target + margin / 2))
    highs.setOptionValue("time_limit", max(wall_seconds, 1e-3))
    model = unit_box(objective, rows.shape[0])
    model.row_lower_, model.row_upper_ = lower, upper
    columns = rows.tocsc()
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = columns.indptr.astype(np.int32)
    model.a_matrix_.index_ = columns.indices.astype(np.int32)
    model.a_matrix_.value_ = columns.data.astype(float)
    model.integrality_ = np.full(objective.size, highspy.HighsVarType.kInteger)
    highs.passModel(model)
    highs.run()
    status, info = highs.getModelStatus(), highs.getInfo()
    if info.primal_solution_status == FEASIBLE and info.objective_function_value <= target + margin / 4:
        return Search("found", np.round(np.asarray(highs.getSolution().col_value)))
    if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kOptimal):
        return Search("none")  # the search ended with every node pruned and no solution below the cutoff
    return Search("timeout")


class OrderModel:
    """Binary pair variables with the objective ``c``, rows added as they are needed."""

    def __init__(self, objective: np.ndarray) -> None:
        self.objective = objective
        self.highs = exact_solver()
        self.highs.passModel(unit_box(objective, 0))
        self.matrix: list[csr_array] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []

    def add_rows(self, matrix: csr_array, lower: np.ndarray, upper: np.ndarray) -> None:
        matrix = csr_array(matrix)
        self.highs.addRows(matrix.shape[0], lower, upper, matrix.nnz, matrix.indptr.astype(np.int32),
                           matrix.indices.astype(np.int32), matrix.data)
        self.matrix.append(matrix)
        self.lower.append(np.asarray(lower, dtype=float))
        self.upper.append(np.asarray(upper, dtype=float))

    def relax(self, wall_seconds: float) -> Relaxation | None:
        """The linear relaxation, from the last basis (None when the time limit stops it)."""
        self._limit(wall_seconds)
        self.highs.run()
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        solution = self.highs.getSolution()
        return self._proof(np.asarray(solution.col_value), np.asarray(solution.row_dual))

    def _proof(self, x: np.ndarray, y: np.ndarray) -> Relaxation:
        if not self.matrix:
            return Relaxation(x, float(np.minimum(self.objective, 0.0).sum()), self.objective.copy())
        matrix = vstack(self.matrix)
        lower, upper = np.concatenate(self.lower), np.concatenate(self.upper)
        # a row with no upper side may only have y >= 0, one with no lower side y <= 0: other signs prove nothing
        y = np.where(np.isinf(upper), np.maximum(y, 0.0), np.where(np.isinf(lower), np.minimum(y, 0.0), y))
        reduced = self.objective - matrix.T @ y
        rows = np.where(y > 0, y * np.where(np.isinf(lower), 0.0, lower), y * np.where(np.isinf(upper), 0.0, upper))
        return Relaxation(x, float(rows.sum() + np.minimum(reduced, 0.0).sum()), reduced)

    def _limit(self, wall_seconds: float) -> None:
        # HiGHS's clock runs across all the solves of one model: the limit is its reading plus the allowance
        self.highs.setOptionValue("time_limit", self.highs.getRunTime() + max(wall_seconds, 1e-3))
