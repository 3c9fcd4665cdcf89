"""Paired significance tests between every pair of systems, with Holm's correction.

Peyrard et al. (2021), "Better than Average: Paired Evaluation of NLP
Systems", ACL, argue that systems scored on the same test instances must be
compared pair by pair on those instances.  For every pair ``(a, b)`` (names in
order, ``a < b``) this module takes the voters that scored both and reports the
win / tie / loss counts, the probability that ``a`` beats ``b`` (ties count
half), the mean and median of the differences ``score_a - score_b``, and four
tests of "no difference":

- paired t-test (Student, 1908) on the differences;
- sign test: exact two-sided binomial test of the wins among the non-tied
  comparisons (Dixon & Mood, 1946);
- Wilcoxon signed-rank test (Wilcoxon, 1945), zero differences dropped
  (scipy's default ``zero_method="wilcox"``);
- Mood's median test (Mood, 1950) of the two samples on the common voters.

A test without data (fewer than two voters for the t-test, no non-tied
comparison for the sign and Wilcoxon tests, every score on one side of the
grand median for Mood's test) gives a null statistic and p-value instead of a
guess.  Each test's p-values are adjusted across all pairs with Holm's
step-down procedure (Holm, 1979, Scand. J. Statist. 6), which controls the
family-wise error rate; ``<test>_significant`` says whether the adjusted
p-value is at most ``alpha``.  Null p-values are left out of the family.

A test counts each voter once, so the voters must all weigh the same.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import polars.selectors as cs
from scipy import stats

from scorehouse.aggregators.errors import InvalidBallotsError, InvalidParameterError
from scorehouse.aggregators.profile import build_profile

TESTS = ("t", "sign", "wilcoxon", "mood")


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values; NaN entries stay NaN and do not count."""
    adjusted = np.full(pvalues.shape, np.nan)
    present = np.flatnonzero(~np.isnan(pvalues))
    order = present[np.argsort(pvalues[present], kind="stable")]
    m = order.size
    stepped = (m - np.arange(m)) * pvalues[order]
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(stepped))
    return adjusted


def _t_test(diff: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paired t statistic and two-sided p-value per column of ``diff`` (NaN = missing)."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns of pairs never scored together
        return t_from_moments(np.nanmean(diff, axis=0), np.nanstd(diff, axis=0, ddof=1), n)


def t_from_moments(mean: np.ndarray, sd: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paired t statistic and two-sided p-value from the differences' mean, standard deviation and count."""
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = mean / (sd / np.sqrt(n))
    statistic = np.where(n >= 2, statistic, np.nan)
    return statistic, 2.0 * stats.t.sf(np.abs(statistic), n - 1)


def sign_test(wins: np.ndarray, losses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided binomial test of ``wins`` among ``wins + losses`` at 1/2."""
    trials = wins + losses
    # Binomial(m, 1/2) is symmetric: the two-sided p is twice the smaller tail.
    pvalue = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), trials, 0.5))
    return np.where(trials > 0, wins, np.nan), np.where(trials > 0, pvalue, np.nan)


def per_pair_tests(a_scores: np.ndarray, b_scores: np.ndarray, diff: np.ndarray) -> tuple[float, ...]:
    """Wilcoxon and Mood statistics and p-values for one pair (scipy; NaN when undefined)."""
    wilcoxon = (np.nan, np.nan)
    if np.any(diff != 0):
        result = stats.wilcoxon(diff)
        wilcoxon = (float(result.statistic), float(result.pvalue))
    mood = (np.nan, np.nan)
    try:
        result = stats.median_test(a_scores, b_scores)
        mood = (float(result.statistic), float(result.pvalue))
    except ValueError:  # every value on one side of the grand median: no 2x2 table
        pass
    return wilcoxon + mood


def paired_tests(ballots: pl.DataFrame, *, alpha: float = 0.05) -> pl.DataFrame:
    """Every pair of systems compared on their common voters, with Holm-adjusted paired tests.

    Columns: ``system_a, system_b, n, wins, ties, losses, p_a_beats_b,
    mean_diff, median_diff`` and, for each test ``t, sign, wilcoxon, mood``,
    ``<test>_statistic, <test>_pvalue, <test>_pvalue_holm, <test>_significant``.
    """
    check_alpha(alpha)
    profile = build_profile(ballots)
    if np.ptp(profile.weights) > 0:
        heavy = int(np.argmax(profile.weights))
        raise InvalidBallotsError(
            f"paired_tests count each voter once, but voter {profile.voters[heavy]!r} has weight "
            f"{profile.weights[heavy]} while others weigh {profile.weights.min()}; drop the weight column"
        )
    scores = profile.scores
    first, second = np.triu_indices(len(profile.systems), k=1)
    diff = scores[:, first] - scores[:, second]  # NaN where either is missing
    common = ~np.isnan(diff)
    n = common.sum(0)
    wins = (diff > 0).sum(0)
    ties = (diff == 0).sum(0)
    losses = (diff < 0).sum(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns of pairs never scored together
        median = np.nanmedian(diff, axis=0) if diff.size else np.zeros(0)
    results = {"t": _t_test(diff, n), "sign": sign_test(wins, losses)}
    # scipy's Wilcoxon and Mood tests take one sample at a time: a loop over pairs.
    per_pair = np.array(
        [
            per_pair_tests(scores[common[:, p], first[p]], scores[common[:, p], second[p]], diff[common[:, p], p])
            for p in range(first.size)
        ]
    ).reshape(first.size, 4)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(np.where(common, diff, 0.0), axis=0) / n
    systems = (tuple(profile.systems[a] for a in first), tuple(profile.systems[b] for b in second))
    return pair_test_table(systems, (n, wins, ties, losses), mean, median, results, per_pair, alpha)


def check_alpha(alpha: float) -> None:
    """Raise :class:`InvalidParameterError` unless ``0 < alpha < 1``."""
    ok = isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0 < alpha < 1
    if not ok:
        raise InvalidParameterError(f"paired_tests: parameter 'alpha' must be in (0, 1), got {alpha!r}")


def pair_test_table(
    systems: tuple[tuple[str, ...], tuple[str, ...]],
    outcomes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    mean: np.ndarray,
    median: np.ndarray,
    results: dict[str, tuple[np.ndarray, np.ndarray]],
    per_pair: np.ndarray,
    alpha: float,
) -> pl.DataFrame:
    """The table of :func:`paired_tests` from each pair's names, ``(n, wins, ties, losses)``, the
    differences' mean and median, the t and sign tests, and the per-pair Wilcoxon and Mood columns."""
    n, wins, ties, losses = outcomes
    results = {**results, "wilcoxon": (per_pair[:, 0], per_pair[:, 1]), "mood": (per_pair[:, 2], per_pair[:, 3])}
    with np.errstate(invalid="ignore", divide="ignore"):
        p_beats = (wins + 0.5 * ties) / n
    columns = {
        "system_a": list(systems[0]),
        "system_b": list(systems[1]),
        "n": n,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "p_a_beats_b": p_beats,
        "mean_diff": mean,
        "median_diff": median,
    }
    for test in TESTS:
        statistic, pvalue = results[test]
        adjusted = holm(np.asarray(pvalue, dtype=float))
        columns[f"{test}_statistic"] = np.asarray(statistic, dtype=float)
        columns[f"{test}_pvalue"] = np.asarray(pvalue, dtype=float)
        columns[f"{test}_pvalue_holm"] = adjusted
        columns[f"{test}_significant"] = np.nan_to_num(adjusted, nan=1.0) <= alpha
    return pl.DataFrame(columns).with_columns(
        pl.col("n", "wins", "ties", "losses").cast(pl.Int64), cs.float().fill_nan(None)
    )
