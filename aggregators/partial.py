"""Combinable partial results: rank a benchmark partition by partition and add up.

Instance-level methods take every (task, metric, instance) as a voter, and
ranks never cross a voter, so a benchmark too large for one dense profile is
ranked one partition (a set of whole voters, e.g. a task) at a time.  Each
partition yields a :class:`Partial` of sums over its voters; partials of
disjoint partitions add up (:func:`combine`), and the finishing functions give
the same scores as the whole-table methods:

* one-level Borda (``borda``, ties averaged) on the complete voters: the sum of
  the voters' weighted Borda points (Borda 1781; Colombo et al. 2022, "What
  are the best systems? New perspectives on NLP benchmarking", NeurIPS);
* two-level Borda and the mean of means (two-step ``borda`` / ``mean``): per
  group (``task | metric``, which never straddles a task) the Borda totals or
  the weighted score sums, then the registry's method across the groups, the
  group weighing the mean weight of its voters, as in
  :func:`aggregators.registry.run` with ``two_step=True``;
* ``bradley_terry``: the weighted win / tie counts and the number of voters
  comparing each pair (Bradley and Terry 1952; Hunter 2004), fitted by
  :func:`aggregators.bradley_terry.bradley_terry_counts`;
* ``borda_partial``: the weighted sum of the voters' imputed pairwise
  matrices and their total weight (Himmi et al. 2023, arXiv:2305.10284).

Borda points are half-integers and counts integers, so with integer weights
the partition-wise scores are exactly the whole-table ones; means and
``borda_partial`` add floats in another order and agree to rounding.  Like the
rank flow on whole tables, the methods that need complete ballots (Borda, the
mean) use only the voters that scored every system of the benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from aggregators.borda_partial import probability_sums
from aggregators.bradley_terry import bradley_terry_counts
from aggregators.errors import InvalidBallotsError
from aggregators.pairwise import PairCounts, weighted_pair_counts
from aggregators.registry import RankingResult, Scored, run
from aggregators.ranking import ranking_table

PARTS = ("ranks", "pairwise", "imputed")


@dataclass(frozen=True)
class Partial:
    """Sums over the voters of one or more partitions of a benchmark (systems in a fixed order).

    Three parts, each computed only when asked for (None otherwise):
    ``ranks`` (Borda and means), ``pairwise`` (Bradley–Terry counts) and
    ``imputed`` (``borda_partial``).
    """

    systems: tuple[str, ...]
    n_voters: int
    n_complete: int
    weight: float  # total weight of every voter
    # ranks
    borda: np.ndarray | None = None  # (systems,) weighted Borda points of the complete voters
    group_names: tuple[str, ...] = ()  # groups with at least one complete voter
    group_borda: np.ndarray | None = None  # (groups, systems) as ``borda``, per group
    group_sum: np.ndarray | None = None  # (groups, systems) weighted scores of the complete voters
    group_weight: np.ndarray | None = None  # (groups,) their total weight
    group_voters: np.ndarray | None = None  # (groups,) their number
    # pairwise
    wins: np.ndarray | None = None  # (systems, systems) weighted, over every voter that scored both
    ties: np.ndarray | None = None  # (systems, systems) weighted, diagonal 0
    compared: np.ndarray | None = None  # (systems, systems) voters that scored both, diagonal 0
    # imputed
    probability_sum: np.ndarray | None = None  # (systems, systems) sum of w_v P_v (borda_partial), diagonal 0


def borda_points(scores: np.ndarray) -> np.ndarray:
    """Each voter's Borda points (ties averaged): systems scored lower plus half the others tied.

    ``scores`` is voters x systems without missing cells.  One vectorised pass
    over the voters per pair of systems: for the pair (i, j), ``(x_i > x_j) +
    (x_i >= x_j)`` is twice i's points from j (2 win, 1 tie, 0 loss) and j gets
    2 minus that, so integer sums of int8 flags give twice the points exactly.
    Systems-major rows keep every pass contiguous; at 15 systems this is about
    5x faster than comparing all pairs at once in voters x systems x systems
    blocks.
    """
    n_voters, n = scores.shape
    by_system = np.ascontiguousarray(scores.T)
    twice = np.zeros((n, n_voters), dtype=np.int32)
    for i in range(n):  # a loop over pairs of systems, each pass over every voter
        for j in range(i + 1, n):
            flags = (by_system[i] > by_system[j]).view(np.int8) + (by_system[i] >= by_system[j]).view(np.int8)
            twice[i] += flags
            twice[j] -= flags
    twice += 2 * np.arange(n, dtype=np.int32)[:, None]  # the "2 minus" of every pair where the system is j
    return (0.5 * twice).T


def _group_sums(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """``out[g, s] = sum of values[v, s] over the voters v of group g`` (a loop over systems)."""
    return np.column_stack(
        [np.bincount(groups, weights=values[:, s], minlength=n_groups) for s in range(values.shape[1])]
    ).reshape(n_groups, values.shape[1])


def partial_of(
    systems: Sequence[str],
    scores: np.ndarray,
    weights: np.ndarray,
    groups: np.ndarray,
    group_names: Sequence[str],
    *,
    parts: Sequence[str] = PARTS,
) -> Partial:
    """The :class:`Partial` of one partition, with the ``parts`` asked for (see :data:`PARTS`).

    ``scores`` is voters x systems (oriented higher-is-better, NaN = missing)
    over the benchmark's full list of ``systems``; ``weights[v]`` the voter's
    weight; ``groups[v]`` the index of its group in ``group_names``.
    """
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise InvalidBallotsError(f"unknown partial part(s) {unknown}; choose from {PARTS}")
    scores = np.asarray(scores, dtype=float)
    weights = np.asarray(weights, dtype=float)
    complete = ~np.isnan(scores).any(axis=1)
    fields: dict = {}
    if "ranks" in parts:
        full, w_full, g_full = scores[complete], weights[complete], np.asarray(groups)[complete]
        weighted_points = w_full[:, None] * borda_points(full)
        n_groups = len(group_names)
        group_voters = np.bincount(g_full, minlength=n_groups)
        kept = np.flatnonzero(group_voters > 0)
        fields.update(
            borda=weighted_points.sum(axis=0),
            group_names=tuple(group_names[g] for g in kept),
            group_borda=_group_sums(weighted_points, g_full, n_groups)[kept],
            group_sum=_group_sums(w_full[:, None] * full, g_full, n_groups)[kept],
            group_weight=np.bincount(g_full, weights=w_full, minlength=n_groups)[kept],
            group_voters=group_voters[kept],
        )
    if "pairwise" in parts or "imputed" in parts:
        wins, ties = weighted_pair_counts(scores, np.column_stack([weights, np.ones_like(weights)]))
        if "pairwise" in parts:
            compared = wins[1] + wins[1].T + ties[1]
            np.fill_diagonal(compared, 0.0)
            fields.update(wins=wins[0], ties=ties[0] * (1.0 - np.eye(len(systems))), compared=compared)
        if "imputed" in parts:
            probability = probability_sums(scores, weights, wins[0], ties[0])
            np.fill_diagonal(probability, 0.0)
            fields.update(probability_sum=probability)
    return Partial(
        systems=tuple(systems), n_voters=scores.shape[0], n_complete=int(complete.sum()),
        weight=float(weights.sum()), **fields,
    )


def combine(partials: Sequence[Partial]) -> Partial:
    """The :class:`Partial` of the union of disjoint partitions (same systems, distinct groups)."""
    if not partials:
        raise InvalidBallotsError("no partition to combine: the benchmark has no instance-level scores")
    systems = partials[0].systems
    for other in partials[1:]:
        if other.systems != systems:
            raise InvalidBallotsError(
                f"partials over different systems cannot be combined: {list(systems)} and {list(other.systems)}"
            )
    names = [g for p in partials for g in p.group_names]
    if len(set(names)) != len(names):
        raise InvalidBallotsError("a group appears in two partitions: partitions must hold whole tasks")

    def total(field: str) -> np.ndarray | None:
        values = [getattr(p, field) for p in partials]
        return None if any(v is None for v in values) else np.sum(values, axis=0)

    def stacked(field: str, width: int) -> np.ndarray | None:
        values = [getattr(p, field) for p in partials]
        if any(v is None for v in values):
            return None
        return np.concatenate(values).reshape((len(names), width) if width else len(names))

    n = len(systems)
    return Partial(
        systems=systems,
        n_voters=sum(p.n_voters for p in partials),
        n_complete=sum(p.n_complete for p in partials),
        weight=sum(p.weight for p in partials),
        borda=total("borda"),
        group_names=tuple(names),
        group_borda=stacked("group_borda", n),
        group_sum=stacked("group_sum", n),
        group_weight=stacked("group_weight", 0),
        group_voters=stacked("group_voters", 0),
        wins=total("wins"),
        ties=total("ties"),
        compared=total("compared"),
        probability_sum=total("probability_sum"),
    )


def _require(partial: Partial, part: str, field: str) -> None:
    if getattr(partial, field) is None:
        raise InvalidBallotsError(f"the partial results lack the {part!r} part; compute it with parts=({part!r}, ...)")


def _result(
    partial: Partial, method: str, scores: Scored, two_step: bool, n_voters: int, params: dict | None = None
) -> RankingResult:
    return RankingResult(
        ranking=ranking_table(partial.systems, scores.scores),
        method=method,
        params=params or {},
        two_step=two_step,
        across=method if two_step else None,
        n_voters=n_voters,
        n_systems=len(partial.systems),
        notes=scores.notes,
    )


def _require_complete_voters(partial: Partial, method: str) -> None:
    _require(partial, "ranks", "borda")
    if partial.n_complete == 0:
        raise InvalidBallotsError(
            f"method {method!r} needs voters that score every system, and none of the {partial.n_voters} does; "
            f"use 'borda_partial' or 'bradley_terry'"
        )
    if partial.group_weight is not None and partial.group_weight.sum() <= 0:
        # the whole-table methods refuse ballots whose weights are all 0: so do their partial forms
        raise InvalidBallotsError(
            f"method {method!r}: every voter that scores every system has weight 0, so no voter counts; "
            f"give at least one complete voter a positive weight"
        )


def _complete_note(partial: Partial) -> tuple[str, ...]:
    dropped = partial.n_voters - partial.n_complete
    return (f"complete voters only: left out {dropped} voter(s) with missing scores",) if dropped else ()


def finish_borda(partial: Partial) -> RankingResult:
    """One-level Borda (ties averaged) over the complete voters."""
    _require_complete_voters(partial, "borda")
    return _result(partial, "borda", Scored(partial.borda, _complete_note(partial)), False, partial.n_complete)


def finish_mean(partial: Partial) -> RankingResult:
    """One-level weighted mean over the complete voters."""
    _require_complete_voters(partial, "mean")
    scores = partial.group_sum.sum(axis=0) / partial.group_weight.sum()
    return _result(partial, "mean", Scored(scores, _complete_note(partial)), False, partial.n_complete)


def finish_two_level(partial: Partial, method: str) -> RankingResult:
    """Two-level ``borda`` or ``mean``: the groups' results ranked by the same method across groups."""
    if method not in ("borda", "mean"):
        raise InvalidBallotsError(f"two-level partial results exist for 'borda' and 'mean', not {method!r}")
    _require_complete_voters(partial, method)
    within = partial.group_borda if method == "borda" else partial.group_sum / partial.group_weight[:, None]
    n_groups, n = within.shape
    ballots = pl.DataFrame(
        {
            "voter": np.repeat(np.array(partial.group_names, dtype=object), n).tolist(),
            "system": list(partial.systems) * n_groups,
            "score": within.ravel(),
            "weight": np.repeat(partial.group_weight / partial.group_voters, n),
        }
    )
    across = run(method, ballots)
    by_system = dict(across.ranking.select("system", "score").iter_rows())
    scores = np.array([by_system[s] for s in partial.systems])
    return _result(partial, method, Scored(scores, _complete_note(partial) + across.notes), True, partial.n_complete)


def finish_bradley_terry(partial: Partial, *, prior: float = 0.5, tol: float = 1e-9, max_iter: int = 10_000) -> RankingResult:
    """Bradley–Terry on the summed win / tie counts (parameters as :func:`bradley_terry_counts`)."""
    _require(partial, "pairwise", "wins")
    counts = PairCounts(partial.systems, partial.wins, partial.ties, np.rint(partial.compared).astype(np.int64))
    scored = bradley_terry_counts(counts, prior=prior, tol=tol, max_iter=max_iter)
    params = {"prior": prior, "tol": tol, "max_iter": max_iter}
    return _result(partial, "bradley_terry", scored, False, partial.n_voters, params)


def finish_borda_partial(partial: Partial) -> RankingResult:
    """Borda on partial rankings: row sums of the weighted mean imputed pairwise matrix."""
    _require(partial, "imputed", "probability_sum")
    if partial.weight <= 0:
        raise InvalidBallotsError(f"all {partial.n_voters} voters have weight 0, so no voter counts")
    scores = (partial.probability_sum / partial.weight).sum(axis=1)
    return _result(partial, "borda_partial", Scored(scores), False, partial.n_voters)
