"""Missing scores: remove a random share of the (task, system) cells and correlate with the complete ranking.

The experiment of Himmi, Irurozki, Noiry, Clémençon and Colombo (2023),
"Towards More Robust NLP System Evaluation: Handling Missing Scores in
Benchmarks", arXiv:2305.10284, Figure 2: for every rate ``eta`` and
repetition, ``round(eta x cells)`` of the observed (task, system) cells are
removed uniformly at random (a task's paired halves go together, see
:mod:`aggregators.robustness`), each method ranks what is left, and the
ranking is compared with the method's ranking of the unmasked benchmark.

Only methods that handle missing scores can take part (``borda_partial``,
the majority-relation rules, ...); ``mean`` is accepted too and then means
the paper's baseline, the weighted mean over the observed cells of each
system (NaN, ranked last, for a system with no cell left).

Two methods are computed for all repetitions without rebuilding anything:

* ``mean``: masked weighted sums;
* ``borda_partial``: a system's Borda score is the row sum of the imputed
  pairwise matrix, which per voter has a closed form: a system observed at
  average rank ``r`` among the ``k`` observed of ``n`` gets
  ``(k - r) + (n - k)(1 - r / (k + 1))`` (the observed systems it beats,
  half the tied ones, and the expected share of unobserved systems that land
  below it), an unobserved system ``(n - 1) / 2``.  Removing cells never
  reorders the cells that remain, so the average ranks of a masked row come
  from one sort of the complete row and cumulative counts of the kept cells
  (:class:`PartialBorda`).  Tested equal to the registered ``borda_partial``.

Every other method is run through the registry on the masked profile.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import method_info
from scorehouse.aggregators.robustness import (
    Params,
    check_count,
    check_methods,
    concat,
    method_scores,
    positive_voters,
    rows,
    seeded,
    Units,
    sub_profile,
    units_of,
)

EXPERIMENT = "missing"
UNITS = ("group", "voter")
DEFAULT_RATES = tuple(np.round(np.linspace(0.0, 0.9, 19), 4).tolist())


class PartialBorda:
    """``borda_partial`` of a profile under many masks, from one sort of its rows.

    Per voter, the closed form ``(k - r) + (n - k)(1 - r / (k + 1))`` is
    ``n - r (n + 1) / (k + 1)``, and a kept cell's average rank ``r`` is
    ``(before + through + 1) / 2`` with ``before`` the kept cells sorted
    strictly ahead of its tie block and ``through`` those up to the block's
    end: two gathers from one cumulative count over the sorted rows.
    """

    def __init__(self, profile: Profile, unit_of_voter: np.ndarray | None = None) -> None:
        scores = profile.scores
        n_voters, n = scores.shape
        key = np.where(np.isnan(scores), -np.inf, scores)
        self.order = np.argsort(-key, axis=1, kind="stable")
        ordered = np.take_along_axis(scores, self.order, axis=1)
        # A tie block: consecutive equal scores of one row in sorted order (NaN cells are never kept).
        starts = np.ones_like(ordered, dtype=bool)
        starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        block = np.cumsum(starts.ravel()) - 1
        first = np.flatnonzero(starts.ravel())
        last = np.append(first[1:] - 1, n_voters * n - 1)
        # Indices into the cumulative count C (C[0] = 0, C[p + 1] = kept cells at flat positions <= p).
        # Outside ties a kept cell's rank is C[p + 1] - base; only tied cells need their block's ends.
        self.tied = np.flatnonzero(first[block] != last[block])
        self.before = first[block][self.tied]
        self.through = last[block][self.tied] + 1
        self.row_start = np.arange(n_voters) * n
        self.system = self.order.ravel()
        self.observed_sorted = ~np.isnan(ordered).ravel()
        if unit_of_voter is not None:
            self.unit_cell = (np.asarray(unit_of_voter)[:, None] * n + self.order).ravel()
        self.weights = profile.weights
        self.shape = (n_voters, n)
        self.n = n

    def scores(self, kept: np.ndarray) -> np.ndarray:
        """The ``borda_partial`` scores when only the cells ``kept`` (voters x systems) are kept."""
        return self._scores(np.take_along_axis(kept, self.order, axis=1).ravel())

    def scores_of_units(self, unit_kept: np.ndarray) -> np.ndarray:
        """The scores when only the observed cells of the (unit, system) cells ``unit_kept`` are kept."""
        return self._scores(self.observed_sorted & unit_kept.ravel()[self.unit_cell])

    def _scores(self, kept_sorted: np.ndarray) -> np.ndarray:
        n = self.n
        count = np.concatenate(([0], np.cumsum(kept_sorted)))
        base = count[self.row_start]
        k = count[self.row_start + n] - base
        rank = count[1:].astype(float)
        rank[self.tied] = (count[self.before] + count[self.through] + 1) / 2.0
        rank = rank.reshape(self.shape) - base[:, None]
        # Every cell gives (n - 1) / 2 when not kept; a kept one gives n - r (n + 1) / (k + 1) instead.
        gain = ((n + 1) / 2.0 - rank * ((n + 1) / (k + 1.0))[:, None]) * self.weights[:, None]
        gain = np.where(kept_sorted.reshape(self.shape), gain, 0.0)
        return (n - 1) / 2.0 + np.bincount(self.system, weights=gain.ravel(), minlength=n) / self.weights.sum()


def observed_mean(scores: np.ndarray, weights: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Each system's weighted mean over its observed cells (NaN when it has none)."""
    weight = weights[:, None] * observed
    total = weight.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (weight * np.where(observed, scores, 0.0)).sum(axis=0) / total, np.nan)


def check_rates(rates: Sequence[float]) -> list[float]:
    rates = list(rates)
    bad = [r for r in rates if not (isinstance(r, (int, float)) and 0.0 <= r < 1.0)]
    if not rates or bad:
        raise InvalidParameterError(
            f"parameter 'rates' must be a non-empty list of missing rates in [0, 1), got {rates!r}"
            + (f" (bad: {bad})" if bad else "")
        )
    return [float(r) for r in rates]


def missing_scores(
    profile: Profile,
    methods: Sequence[str],
    *,
    rates: Sequence[float] = DEFAULT_RATES,
    repetitions: int,
    seed: int,
    params: Params = None,
    unit: str = "group",
) -> pl.DataFrame:
    """The missing-scores table (:data:`aggregators.robustness.TABLE_SCHEMA`), setting = the rate eta.

    The removed cells of a (rate, repetition) are the same for every method
    (drawn from ``(seed, rate index)``).  Methods other than ``mean`` must
    handle missing scores.  ``unit="voter"`` removes (voter, system) cells
    instead of (task, system) cells: the paper's setting, where every column
    of a leaderboard (each half of a paired task too) is a cell of its own.
    """
    parameters = check_methods(methods, params)
    check_count("repetitions", repetitions, 1)
    rates = check_rates(rates)
    refused = [m for m in methods if m != "mean" and not method_info(m).handles_missing]
    if refused:
        raise InvalidParameterError(
            f"methods {refused} need complete scores and cannot take part in the missing-scores experiment; "
            f"use methods that handle missing scores (borda_partial, copeland, minimax, ...) or 'mean' "
            f"(the mean over the observed cells)"
        )
    if unit not in UNITS:
        raise InvalidParameterError(f"parameter 'unit' must be one of {UNITS}, got {unit!r}")
    profile = positive_voters(profile)
    units = units_of(profile) if unit == "group" else Units(profile.voters, np.arange(len(profile.voters)))
    observed = profile.observed
    # A (task, system) cell is observed when any voter of the task scored the system.
    unit_observed = np.zeros((len(units.names), len(profile.systems)), dtype=bool)
    np.logical_or.at(unit_observed, units.of_voter, observed)
    cells = np.flatnonzero(unit_observed.ravel())
    fast = PartialBorda(profile, units.of_voter) if "borda_partial" in methods else None
    everything = np.ones_like(unit_observed)
    references = {m: _masked_scores(m, profile, units.of_voter, everything, parameters[m], fast) for m in methods}
    frames = []
    for index, rate in enumerate(rates):  # a loop over a handful of rates
        rng = seeded(seed, index)
        n_removed = int(round(rate * cells.size))
        removed = cells[rng.random((repetitions, cells.size)).argsort(axis=1)[:, :n_removed]]
        unit_masks = np.ones((repetitions, unit_observed.size), dtype=bool)
        np.put_along_axis(unit_masks, removed, False, axis=1)
        unit_masks = unit_masks.reshape(repetitions, *unit_observed.shape)
        for method in methods:
            scored = np.vstack(
                [_masked_scores(method, profile, units.of_voter, kept, parameters[method], fast) for kept in unit_masks]
            )
            frames.append(rows(EXPERIMENT, method, "", rate, references[method], scored))
    return concat(frames)


def _masked_scores(
    method: str, profile: Profile, unit_of_voter: np.ndarray, unit_kept: np.ndarray, params: dict, fast: PartialBorda | None
) -> np.ndarray:
    """The method's scores with only the (unit, system) cells ``unit_kept`` left."""
    if method == "borda_partial" and not params and fast is not None:
        return fast.scores_of_units(unit_kept)
    kept = profile.observed & unit_kept[unit_of_voter]
    if method == "mean":
        return observed_mean(profile.scores, profile.weights, kept)
    return method_scores(method, sub_profile(profile, scores=np.where(kept, profile.scores, np.nan)), params)
