"""Bootstrap intervals of scores and ranks for any registered method.

Efron (1979), "Bootstrap methods: another look at the jackknife", Ann.
Statist. 7(1): the voters are the sample; resampling them with replacement
and re-ranking shows how much the ranking owes to the particular voters.  The
intervals are percentile intervals at ``level``.  The rank interval of a system
runs from its best to its worst rank within the central ``level`` of the
resamples (lower and upper empirical quantiles, so it never shrinks between
two observed ranks); systems whose rank intervals overlap, directly or through
a chain of overlaps, share a ``tie_group``: the data cannot order them.
Peyrard et al. (2021), "Better than Average", ACL, and Colombo et al. (2022),
"What are the best systems? New perspectives on NLP benchmarking", NeurIPS,
argue for such uncertainty next to every ranking.

Resampling (``resample``):

- ``"voters"`` (default): voters drawn with replacement (within their group
  for two-step runs).  For a method that depends on the ballots only through
  the pairwise counts (registered with ``from_counts``) the resampled counts are
  the per-voter outcome matrices weighted by the resample multiplicities, one
  matrix product for all resamples, and the method refits on them in a batch.
- ``"pairs"``: only for ``from_counts`` methods, one-step: every pair's
  (win, tie, loss) counts are redrawn from a multinomial with the observed
  proportions, independently across pairs.  Faster (it does not grow with the
  number of voters), but it ignores that one voter's comparisons of ``a`` with
  ``b`` and with ``c`` are correlated, so its intervals are too narrow on
  instance-level data; use it only where pairs were compared independently.

A method registered with ``resampled`` (a fit whose sums are linear in the voters' weights, such as
``borda_partial`` and ``mean_adjusted``) is not refitted resample by resample: the same voter draws
become multiplicities, and the method fits every resample in one batch, equal to the refits.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.pairwise import PairCounts, outcome_matrices, pair_counts
from scorehouse.aggregators.profile import Profile, build_profile
from scorehouse.aggregators.ranking import ranking_table, tie_classes
from scorehouse.aggregators.parameters import check_parameters
from scorehouse.aggregators.registry import REGISTRY, MethodInfo, Scored, method_info
from scorehouse.aggregators.scoring import score_profile
from scorehouse.aggregators.two_step import resampled_two_step, score_two_step

RESAMPLING = ("voters", "pairs")
# Voters per block of the counts product: bounds memory at about 32 MB per block.
BLOCK_CELLS = 4_000_000


def _batched(output: np.ndarray | Scored) -> Scored:
    if isinstance(output, Scored):
        return Scored(np.asarray(output.scores, dtype=float), output.notes)
    return Scored(np.asarray(output, dtype=float))


def _counts_by_voters(profile: Profile, multiplicity: np.ndarray) -> PairCounts:
    """Pair counts of every resample: per-voter outcomes weighted by ``multiplicity`` (B x V)."""
    n = len(profile.systems)
    b = multiplicity.shape[0]
    wins, ties, voters = (np.zeros((b, n * n)) for _ in range(3))
    block = max(1, BLOCK_CELLS // max(1, n * n))
    for start in range(0, len(profile.voters), block):
        rows = slice(start, start + block)
        above, level = outcome_matrices(profile.scores[rows])
        observed = profile.observed[rows]
        both = (observed[:, :, None] & observed[:, None, :]).reshape(-1, n * n)
        weighted = multiplicity[:, rows] * profile.weights[rows]
        wins += weighted @ above.reshape(-1, n * n)
        ties += weighted @ level.reshape(-1, n * n)
        voters += multiplicity[:, rows] @ both
    shape = (b, n, n)
    voters = voters.reshape(shape)
    voters[:, np.arange(n), np.arange(n)] = 0
    return PairCounts(profile.systems, wins.reshape(shape), ties.reshape(shape), voters.round().astype(np.int64))


def _counts_by_pairs(counts: PairCounts, n_resamples: int, rng: np.random.Generator) -> PairCounts:
    """Every pair's outcomes redrawn from its observed multinomial, independently across pairs."""
    n = len(counts.systems)
    a, b = np.triu_indices(n, k=1)
    outcomes = np.stack([counts.wins[a, b], counts.ties[a, b], counts.wins[b, a]], axis=-1)
    total = outcomes.sum(-1)
    trials = counts.voters[a, b]
    with np.errstate(invalid="ignore", divide="ignore"):
        proportions = np.where(total[:, None] > 0, outcomes / total[:, None], 1.0 / 3.0)
        # Draw voter counts, then restore the pair's weighted total.
        scale = np.where(trials > 0, total / trials, 0.0)
    drawn = rng.multinomial(trials, proportions, size=(n_resamples, a.size)) * scale[:, None]
    return outcome_counts(counts.systems, a, b, drawn, np.broadcast_to(counts.voters, (n_resamples, n, n)))


def outcome_counts(
    systems: tuple[str, ...], a: np.ndarray, b: np.ndarray, drawn: np.ndarray, voters: np.ndarray
) -> PairCounts:
    """Resampled counts from ``drawn[r, p]``: the (a wins, tie, b wins) weights of pair ``(a[p], b[p])``."""
    n = len(systems)
    wins = np.zeros((drawn.shape[0], n, n))
    ties = np.zeros((drawn.shape[0], n, n))
    wins[:, a, b], ties[:, a, b], wins[:, b, a] = drawn[..., 0], drawn[..., 1], drawn[..., 2]
    ties[:, b, a] = ties[:, a, b]
    return PairCounts(systems, wins, ties, voters)


def _voter_draws(profile: Profile, n_resamples: int, within_groups: bool, rng: np.random.Generator) -> np.ndarray:
    """Indices of the voters of every resample (B x V), within groups when asked."""
    n_voters = len(profile.voters)
    if not within_groups:
        return rng.integers(0, n_voters, size=(n_resamples, n_voters))
    groups = np.asarray(profile.groups, dtype=object)
    draws = []
    for group in sorted(set(profile.groups)):  # a loop over groups, not voters
        members = np.flatnonzero(groups == group)
        draws.append(members[rng.integers(0, members.size, size=(n_resamples, members.size))])
    return np.concatenate(draws, axis=1)


def _resampled_scores(
    info: MethodInfo,
    profile: Profile,
    params: dict[str, Any],
    *,
    n_resamples: int,
    resample: str,
    two_step: bool,
    across: str | None,
    rng: np.random.Generator,
) -> Scored:
    """Scores (B x systems) of ``info``'s method on every resample, with their notes."""
    if info.from_counts is not None and not two_step:
        if resample == "pairs":
            counts = _counts_by_pairs(pair_counts(profile), n_resamples, rng)
        else:
            n_voters = len(profile.voters)
            multiplicity = rng.multinomial(n_voters, np.full(n_voters, 1.0 / n_voters), size=n_resamples)
            counts = _counts_by_voters(profile, multiplicity.astype(float))
        return _batched(info.from_counts(counts, **params))
    rows = _voter_draws(profile, n_resamples, two_step, rng)
    if info.resampled is not None:
        multiplicity = draw_multiplicity(rows, len(profile.voters))
        if not two_step:
            return _batched(info.resampled(profile, multiplicity, **params))
        batched = resampled_two_step(info.name, profile, params, multiplicity, across=across or info.name)
        if batched is not None:
            return batched
    voters, groups = np.asarray(profile.voters, dtype=object), np.asarray(profile.groups, dtype=object)
    scores, notes = [], []
    for draw in rows:  # one refit per resample: a method sees whole profiles
        sample = Profile(
            systems=profile.systems,
            voters=tuple(voters[draw].tolist()),  # indexed in C: a resample of 26,559 voters is not a Python loop
            scores=profile.scores[draw],
            weights=profile.weights[draw],
            groups=tuple(groups[draw].tolist()),
            group_weights=None if profile.group_weights is None else profile.group_weights[draw],  # a group's own
        )
        if two_step:
            _, result = score_two_step(info.name, sample, params, across=across or info.name, across_params=None)
        else:
            result = score_profile(info.name, sample, params)
        scores.append(result.scores)
        notes.extend(result.notes)
    return Scored(np.array(scores), tuple(notes))


def draw_multiplicity(rows: np.ndarray, n_voters: int) -> np.ndarray:
    """How often each resample (a row of voter indices, B x V) draws each voter: B x ``n_voters`` counts."""
    offsets = np.arange(rows.shape[0])[:, None] * n_voters
    return np.bincount((rows + offsets).ravel(), minlength=rows.shape[0] * n_voters).reshape(-1, n_voters).astype(float)


def tie_groups(best: np.ndarray, worst: np.ndarray) -> np.ndarray:
    """Group ids (1 = best) of systems linked by chains of overlapping rank intervals."""
    order = np.lexsort((worst, best))
    # A new group starts where an interval begins after every earlier one has ended.
    reach = np.maximum.accumulate(worst[order])
    starts = np.concatenate(([True], best[order][1:] > reach[:-1]))
    groups = np.empty(best.size, dtype=np.int64)
    groups[order] = np.cumsum(starts)
    return groups


def bootstrap(
    name: str,
    ballots: pl.DataFrame,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    resample: str = "voters",
    two_step: bool = False,
    across: str | None = None,
    **params: Any,
) -> pl.DataFrame:
    """Point ranking of method ``name`` with bootstrap score and rank intervals.

    ``params`` go to the method (and, in a two-step run, to ``across`` when it
    is the same method).  Returns ``system, score, rank, tied, score_low,
    score_high, rank_best, rank_worst, tie_group`` sorted by rank then system.
    Deterministic for a given ``seed``.  Notes of the refits (for example
    non-convergence) are issued as warnings.
    """
    info = method_info(name)
    check_parameters(info, params)
    check_resampling(n_resamples, level)
    if resample not in RESAMPLING:
        raise InvalidParameterError(f"bootstrap: 'resample' must be one of {RESAMPLING}, got {resample!r}")
    if resample == "pairs" and (info.from_counts is None or two_step):
        raise InvalidParameterError(
            f"bootstrap: resample='pairs' redraws pairwise counts, which only one-step runs of methods "
            f"computed from counts support ({sorted(m for m, i in REGISTRY.items() if i.from_counts)}); "
            f"got method {name!r} with two_step={two_step}; use resample='voters'"
        )
    if across is not None and not two_step:
        raise InvalidParameterError(f"bootstrap: 'across' only applies with two_step=True, got across={across!r}")
    profile = build_profile(ballots)
    if two_step:
        # The second step's ballots list every system of the profile, in the same order.
        _, point = score_two_step(name, profile, params, across=across or name, across_params=None)
    else:
        point = score_profile(name, profile, params)
    rng = np.random.default_rng(seed)
    resampled = _resampled_scores(
        info, profile, params, n_resamples=n_resamples, resample=resample, two_step=two_step, across=across, rng=rng
    )
    return interval_table(name, profile.systems, point, resampled, level)


def check_resampling(n_resamples: int, level: float) -> None:
    """Raise :class:`InvalidParameterError` unless ``n_resamples >= 2`` and ``0 < level < 1``."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise InvalidParameterError(f"bootstrap: 'n_resamples' must be an integer >= 2, got {n_resamples!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise InvalidParameterError(f"bootstrap: 'level' must be in (0, 1), got {level!r}")


def score_intervals(resampled: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals at ``level`` of every column of ``resampled`` (resamples x systems)."""
    tail = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # systems no resample could score stay NaN
        low, high = np.nanquantile(resampled, [tail, 1.0 - tail], axis=0)
    return low, high


def interval_table(
    name: str, systems: tuple[str, ...], point: Scored, resampled: Scored, level: float
) -> pl.DataFrame:
    """The point ranking with score and rank intervals (see :func:`bootstrap`); notes become warnings."""
    for note in dict.fromkeys(point.notes + resampled.notes):
        warnings.warn(f"bootstrap of {name!r}: {note}", RuntimeWarning, stacklevel=3)
    tail = (1.0 - level) / 2.0
    low, high = score_intervals(resampled.scores, level)
    ranks = tie_classes(resampled.scores)  # every resample ranked at once
    best = np.quantile(ranks, tail, axis=0, method="lower").astype(np.int64)
    worst = np.quantile(ranks, 1.0 - tail, axis=0, method="higher").astype(np.int64)
    intervals = pl.DataFrame(
        {
            "system": list(systems),
            "score_low": low,
            "score_high": high,
            "rank_best": best,
            "rank_worst": worst,
            "tie_group": tie_groups(best, worst),
        }
    )
    return ranking_table(systems, point.scores).join(intervals, on="system").sort("rank", "system")
