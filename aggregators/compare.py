"""Compare rankings: Kendall tau-b and distance, Spearman rho, top-k / last-k agreement,
Kemeny dispersion of voters, discriminative power and IIA violations.

A *ranking* is either the contract's ranking table (a polars DataFrame with
``system`` and ``rank`` columns, rank 1 = best) or a mapping ``system -> score``
(higher is better; scores within the ranking module's tie tolerance are tied,
as in :func:`aggregators.ranking.tie_classes`).

Two rankings are compared **on the systems they share**: each is restricted to
the common systems (their relative order is kept, the others are dropped), so
a system present in only one ranking never counts as agreement or
disagreement.  Fewer than two common systems raise
:class:`InvalidParameterError`.

References: Kendall (1945) for tau-b with ties; Fagin, Kumar, Mahdian,
Sivakumar and Vee (2004), "Comparing and aggregating rankings with ties"
(the Kendall distance with penalty p for pairs tied in one ranking only);
Colombo, Noiry, Irurozki and Clémençon (2022), "What are the best systems? New
perspectives on NLP benchmarking" (NeurIPS), appendix, for the Kemeny
dispersion of the voters; Rofin, Mikhailov, Florinsky, Kravchenko, Tutubalina,
Shavrina, Karabekyan and Artemova (2023), "Vote'n'Rank: Revision of Benchmarking
with Social Choice Theory" (EACL), for the IIA experiment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl
from scorehouse.aggregators.ranks import rankdata

from scorehouse.aggregators.pairwise import weighted_pair_counts
from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import Profile, build_profile
from scorehouse.aggregators.ranking import tie_classes
from scorehouse.aggregators.registry import method_info
from scorehouse.aggregators.scoring import score_profile

Ranking = pl.DataFrame | Mapping[str, float]


def _ranks(ranking: Ranking, name: str) -> dict[str, int]:
    """``system -> competition rank`` (1 = best) of a ranking table or score mapping."""
    if isinstance(ranking, pl.DataFrame):
        absent = {"system", "rank"} - set(ranking.columns)
        if absent:
            raise InvalidParameterError(
                f"parameter {name!r}: a ranking table needs the columns system and rank, "
                f"it lacks {sorted(absent)}"
            )
        if ranking.get_column("rank").null_count() or ranking.get_column("system").n_unique() != ranking.height:
            raise InvalidParameterError(
                f"parameter {name!r}: a ranking table needs one non-null rank per system, each system once"
            )
        return dict(zip(ranking.get_column("system").to_list(), ranking.get_column("rank").to_list()))
    if isinstance(ranking, Mapping):
        systems = list(ranking)
        scores = np.array([ranking[s] for s in systems], dtype=float)
        if np.isnan(scores).any():
            raise InvalidParameterError(
                f"parameter {name!r}: system {systems[int(np.argmax(np.isnan(scores)))]!r} has a NaN score; "
                f"drop unranked systems before comparing"
            )
        return dict(zip(systems, tie_classes(scores).tolist()))
    raise InvalidParameterError(
        f"parameter {name!r} must be a ranking table (DataFrame with system, rank) or a "
        f"mapping system -> score, got {type(ranking).__name__}"
    )


def _common(a: Ranking, b: Ranking) -> tuple[np.ndarray, np.ndarray]:
    """The two rankings' ranks (lower = better) on their common systems, in name order."""
    ranks_a, ranks_b = _ranks(a, "a"), _ranks(b, "b")
    common = sorted(set(ranks_a) & set(ranks_b))
    if len(common) < 2:
        raise InvalidParameterError(
            f"the rankings 'a' ({len(ranks_a)} systems) and 'b' ({len(ranks_b)} systems) share "
            f"{len(common)} system(s); comparing needs at least 2 common systems"
        )
    return (
        np.array([ranks_a[s] for s in common], dtype=float),
        np.array([ranks_b[s] for s in common], dtype=float),
    )


def _pair_signs(ranks: np.ndarray) -> np.ndarray:
    """+1 / -1 / 0 for every unordered pair (i < j): i better, worse, tied."""
    i, j = np.triu_indices(ranks.size, k=1)
    return np.sign(ranks[j] - ranks[i])


def kendall_tau(a: Ranking, b: Ranking) -> float:
    """Kendall's tau-b between two rankings on their common systems.

    ``(C - D) / sqrt((P - T_a) (P - T_b))`` with C concordant and D discordant
    pairs, P all pairs and T_a, T_b the pairs tied in a, b; NaN when either
    ranking ties every pair (the coefficient is undefined), as scipy does.
    """
    ranks_a, ranks_b = _common(a, b)
    sa, sb = _pair_signs(ranks_a), _pair_signs(ranks_b)
    denominator = np.sqrt(float(np.count_nonzero(sa)) * float(np.count_nonzero(sb)))
    if denominator == 0:
        return float("nan")
    return float(np.dot(sa, sb) / denominator)


def kendall_distance(a: Ranking, b: Ranking, *, penalty: float = 0.5, normalized: bool = False) -> float:
    """Kendall distance between two rankings on their common systems (Fagin et al. 2004, K^(p)).

    Counts the pairs ordered oppositely, plus ``penalty`` for each pair tied in
    exactly one of the rankings (pairs tied in both cost 0).  ``normalized``
    divides by the number of pairs, giving a value in [0, 1].
    """
    if not (0 <= penalty <= 1):
        raise InvalidParameterError(f"kendall_distance: parameter 'penalty' must lie in [0, 1], got {penalty!r}")
    ranks_a, ranks_b = _common(a, b)
    sa, sb = _pair_signs(ranks_a), _pair_signs(ranks_b)
    distance = float(np.count_nonzero(sa * sb < 0)) + penalty * float(np.count_nonzero((sa == 0) != (sb == 0)))
    return distance / sa.size if normalized else distance


def spearman_rho(a: Ranking, b: Ranking) -> float:
    """Spearman's rho: Pearson correlation of the average ranks on the common systems (NaN if one is constant)."""
    ranks_a, ranks_b = _common(a, b)
    x, y = rankdata(ranks_a), rankdata(ranks_b)  # re-rank among the common systems, ties averaged
    x, y = x - x.mean(), y - y.mean()
    denominator = np.sqrt(np.dot(x, x) * np.dot(y, y))
    return float(np.dot(x, y) / denominator) if denominator > 0 else float("nan")


def _agreement(ranks_a: np.ndarray, ranks_b: np.ndarray, k: int) -> float:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= ranks_a.size:
        raise InvalidParameterError(
            f"parameter 'k' must be an integer between 1 and the {ranks_a.size} common systems, got {k!r}"
        )
    top_a = rankdata(ranks_a, method="min") <= k
    top_b = rankdata(ranks_b, method="min") <= k
    return float(np.count_nonzero(top_a & top_b) / max(np.count_nonzero(top_a), np.count_nonzero(top_b)))


def top_k_agreement(a: Ranking, b: Ranking, k: int) -> float:
    """Share of common systems in the two top-k sets, on the systems both rankings share.

    The top-k set of a ranking holds the systems of rank <= k (competition
    ranks among the common systems), so a tie across position k brings all its
    members in and the set is never an arbitrary cut.  The agreement is
    ``|A & B| / max(|A|, |B|)``: ``|A & B| / k`` without ties, 1 exactly when
    the two sets are equal.
    """
    return _agreement(*_common(a, b), k)


def last_k_agreement(a: Ranking, b: Ranking, k: int) -> float:
    """Share of common systems in the two last-k sets: :func:`top_k_agreement` of the reversed rankings."""
    ranks_a, ranks_b = _common(a, b)
    return _agreement(-ranks_a, -ranks_b, k)


def discriminative_power(ranking: Ranking) -> int:
    """The number of tied pairs of systems in a ranking: the fewer, the more the ranking discriminates."""
    ranks = np.array(list(_ranks(ranking, "ranking").values()), dtype=np.int64)
    sizes = np.bincount(ranks)
    return int((sizes * (sizes - 1) // 2).sum())


def kemeny_dispersion(ballots: pl.DataFrame, *, penalty: float = 0.5, normalized: bool = False) -> float:
    """Sum of the Kendall distances between every two voters' rankings (Colombo et al. 2022, appendix).

    Each voter ranks the systems it scored; a pair of systems counts between
    two voters only when both scored both systems (a missing score is no
    disagreement).  Weighted voters count ``w_v w_u`` per pair of voters, so
    unit weights give the plain sum.  Computed from the pairwise counts:
    ``sum_{i<j} N_ij N_ji + penalty T_ij (N_ij + N_ji)`` with ``N_ij`` the
    weight preferring i to j and ``T_ij`` the weight tying them, never over
    pairs of voters.  ``normalized`` divides by (number of voter pairs) x
    (number of system pairs), giving the mean normalised distance in [0, 1].
    """
    if not (0 <= penalty <= 1):
        raise InvalidParameterError(f"kemeny_dispersion: parameter 'penalty' must lie in [0, 1], got {penalty!r}")
    profile = build_profile(ballots)
    wins, ties = weighted_pair_counts(profile.scores, profile.weights[:, None])
    upper = np.triu(np.ones(wins.shape[1:], dtype=bool), k=1)
    win, loss, tie = wins[0][upper], wins[0].T[upper], ties[0][upper]
    dispersion = float((win * loss + penalty * tie * (win + loss)).sum())
    if not normalized:
        return dispersion
    weights = profile.weights
    voter_pairs = (weights.sum() ** 2 - np.square(weights).sum()) / 2
    return dispersion / (voter_pairs * upper.sum()) if voter_pairs * upper.sum() > 0 else 0.0


def iia_violation_rate(
    method: str,
    ballots: pl.DataFrame,
    n_trials: int,
    seed: int,
    *,
    params: Mapping[str, Any] | None = None,
) -> float:
    """Share of system additions that change the relative order of systems already ranked (Vote'n'Rank IIA).

    Each trial draws a random order of all the systems (``numpy`` generator
    seeded with ``seed``), ranks the first two with ``method``, then adds the
    others one at a time; an addition violates independence of irrelevant
    alternatives when the systems already present are not in the same weak
    order (ties included) before and after it.  Returns violations divided by
    additions, ``n_trials * (n_systems - 2)``.  ``params`` go to the method.
    Needs at least 3 systems.
    """
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 1:
        raise InvalidParameterError(f"iia_violation_rate: parameter 'n_trials' must be an integer >= 1, got {n_trials!r}")
    params = dict(params or {})
    method_info(method)
    profile = build_profile(ballots)
    n = len(profile.systems)
    if n < 3:
        raise InvalidParameterError(
            f"iia_violation_rate: the ballots rank {n} system(s); adding a system to two others needs at least 3"
        )
    rng = np.random.default_rng(seed)
    violations = 0
    for _ in range(n_trials):
        order = rng.permutation(n)
        before = _scores_of(method, profile, order[:2], params)
        for size in range(3, n + 1):  # a loop over systems, not voters
            after = _scores_of(method, profile, order[:size], params)
            kept = order[: size - 1]
            violations += not np.array_equal(tie_classes(after[kept]), tie_classes(before[kept]))
            before = after
    return violations / (n_trials * (n - 2))


def _scores_of(method: str, profile: Profile, present: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """Scores of ``method`` on the systems ``present`` alone, placed in a full-length array (NaN elsewhere).

    The sub-profile keeps the systems in name order, as every profile does.
    """
    columns = np.sort(present)
    sub = Profile(
        systems=tuple(profile.systems[c] for c in columns),
        voters=profile.voters,
        scores=profile.scores[:, columns],
        weights=profile.weights,
        groups=profile.groups,
    )
    scores = np.full(len(profile.systems), np.nan)
    scores[columns] = score_profile(method, sub, params).scores
    return scores
