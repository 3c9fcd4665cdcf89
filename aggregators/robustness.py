"""What every robustness experiment shares: units, scoring, the comparison with a reference, the summary.

A robustness experiment perturbs a benchmark (drops tasks, removes scores,
rescales a task, or draws a synthetic benchmark with a known truth), ranks
the perturbed benchmark with each method, and compares the result with a
reference ranking: the method's own ranking of the unperturbed benchmark, or
the truth.  Every experiment returns a tidy table of :data:`TABLE_SCHEMA`
(one row per method, condition, setting and repetition) that
:func:`summarise` reduces to a mean and a spread per (method, condition,
setting).

The comparison is vectorised over repetitions: Kendall's tau-b (Kendall
1945) and the top-1 / top-3 agreement of :mod:`aggregators.compare` (same
definitions: competition ranks, a tie across position k brings all its
members in, agreement ``|A & B| / max(|A|, |B|)``), computed for a whole
stack of score vectors at once.

The unit that is dropped or masked is the voters' **group** (the task: the
halves of a paired GLUE cell such as MRPC F1 / accuracy are two voters of
one group, and dropping the task drops both), and voters of weight 0 (for
example GLUE's diagnostic AX) are left out first, since they count for
nothing in the reference either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import tie_classes
from scorehouse.aggregators.registry import method_info
from scorehouse.aggregators.scoring import score_profile
from scorehouse.aggregators.schemas import SUMMARY_SCHEMA, TABLE_SCHEMA

Params = Mapping[str, Mapping[str, Any]] | None


@dataclass(frozen=True)
class Units:
    """The groups (tasks) of a profile: ``names[u]`` and, per voter, the index of its unit."""

    names: tuple[str, ...]
    of_voter: np.ndarray


def positive_voters(profile: Profile) -> Profile:
    """``profile`` without its voters of weight 0."""
    keep = np.flatnonzero(profile.weights > 0)
    return sub_profile(profile, rows=keep)


def sub_profile(profile: Profile, *, rows: np.ndarray | None = None, scores: np.ndarray | None = None) -> Profile:
    """The profile restricted to voters ``rows`` (all by default), with ``scores`` replacing its matrix."""
    rows = np.arange(len(profile.voters)) if rows is None else np.asarray(rows)
    return Profile(
        systems=profile.systems,
        voters=tuple(profile.voters[r] for r in rows),
        scores=profile.scores[rows] if scores is None else scores,
        weights=profile.weights[rows],
        groups=tuple(profile.groups[r] for r in rows),
    )


def units_of(profile: Profile) -> Units:
    """The distinct groups of the profile, sorted, and each voter's group index."""
    names, index = np.unique(np.asarray(profile.groups, dtype=object), return_inverse=True)
    return Units(names=tuple(str(n) for n in names), of_voter=index.astype(np.int64))


def check_methods(methods: Sequence[str], params: Params) -> dict[str, dict[str, Any]]:
    """Every method's parameters (empty by default); unknown methods or parameter keys raise."""
    if not methods:
        raise InvalidParameterError("parameter 'methods' is empty; name at least one registered method")
    for name in methods:
        method_info(name)
    extra = sorted(set(params or {}) - set(methods))
    if extra:
        raise InvalidParameterError(f"parameter 'params' names method(s) {extra} that are not among {list(methods)}")
    return {name: dict((params or {}).get(name, {})) for name in methods}


def check_count(name: str, value: int, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InvalidParameterError(f"parameter {name!r} must be an integer >= {low}, got {value!r}")


def method_scores(method: str, profile: Profile, params: Mapping[str, Any]) -> np.ndarray:
    """The method's score of every system of ``profile`` (higher is better)."""
    return score_profile(method, profile, params).scores


def compare_batch(reference: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kendall tau-b, top-1 and top-3 agreement of each row of ``scores`` with ``reference``.

    ``reference`` holds one score per system, ``scores`` one row per
    repetition; scores within the ranking module's tolerance tie and NaN
    ranks last, as in :func:`aggregators.ranking.tie_classes`.  Tau is NaN
    when either ranking ties every pair; top-k agreement needs ``k <= n``
    (it is NaN otherwise).
    """
    reference = np.asarray(reference, dtype=float)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    ref_ranks = tie_classes(reference)
    ranks = np.vstack([tie_classes(row) for row in scores]) if len(scores) else np.empty((0, reference.size), int)
    i, j = np.triu_indices(reference.size, k=1)
    ref_signs = np.sign(ref_ranks[j] - ref_ranks[i])
    signs = np.sign(ranks[:, j] - ranks[:, i])
    denominator = np.sqrt(np.count_nonzero(ref_signs) * np.count_nonzero(signs, axis=1).astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(denominator > 0, (signs * ref_signs).sum(axis=1) / denominator, np.nan)
    return tau, _top_k(ref_ranks, ranks, 1), _top_k(ref_ranks, ranks, 3)


def _top_k(ref_ranks: np.ndarray, ranks: np.ndarray, k: int) -> np.ndarray:
    if k > ref_ranks.size:
        return np.full(len(ranks), np.nan)
    ref_top = ref_ranks <= k
    top = ranks <= k
    both = (top & ref_top).sum(axis=1)
    return both / np.maximum(top.sum(axis=1), ref_top.sum())


def rows(
    experiment: str, method: str, condition: str, setting: float, reference: np.ndarray, scores: np.ndarray
) -> pl.DataFrame:
    """The table rows of one (method, condition, setting): one per row of ``scores``."""
    tau, top1, top3 = compare_batch(reference, scores)
    n = len(tau)
    return pl.DataFrame(
        {
            "experiment": [experiment] * n,
            "method": [method] * n,
            "condition": [condition] * n,
            "setting": np.full(n, float(setting)),
            "repetition": np.arange(n, dtype=np.int64),
            "kendall_tau": tau,
            "top1": top1,
            "top3": top3,
        },
        schema=TABLE_SCHEMA,
    )


def concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """The frames stacked, or an empty table of the schema."""
    return pl.concat(frames) if frames else pl.DataFrame(schema=TABLE_SCHEMA)


def summarise(table: pl.DataFrame) -> pl.DataFrame:
    """Mean, standard deviation and 5-95 % band of tau, and mean top-1 / top-3 agreement, per setting.

    NaN taus (a ranking that ties every system) are left out of the tau
    statistics and counted in neither.
    """
    tau = pl.col("kendall_tau").filter(pl.col("kendall_tau").is_not_nan())
    return (
        table.group_by("experiment", "method", "condition", "setting")
        .agg(
            pl.len().cast(pl.Int64).alias("repetitions"),
            tau.mean().alias("tau_mean"),
            tau.std(ddof=0).alias("tau_std"),
            tau.quantile(0.05, interpolation="linear").alias("tau_low"),
            tau.quantile(0.95, interpolation="linear").alias("tau_high"),
            pl.col("top1").mean().alias("top1_mean"),
            pl.col("top3").mean().alias("top3_mean"),
        )
        .select(pl.col(c).cast(t) for c, t in SUMMARY_SCHEMA.items())
        .sort("experiment", "method", "condition", "setting")
    )


def seeded(seed: int, *keys: int) -> np.random.Generator:
    """A generator for one cell of an experiment: the same (seed, keys) give the same draws,
    whatever other settings or methods are run alongside."""
    check_count("seed", seed, 0)
    return np.random.default_rng([int(seed), *map(int, keys)])
