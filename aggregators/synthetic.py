"""Synthetic benchmarks with a known true ranking.

The model of Colombo et al. (2022), "What are the best systems? New
perspectives on NLP benchmarking" (NeurIPS), section 5: system ``n``
(0-based) scores ``phi * n + G`` on every voter, with ``G`` a standard Gumbel
draw, so the systems are ordered by their index (the last one is best) and the
dispersion ``phi`` sets how easy the order is to recover (the scores follow a
Plackett–Luce model with strengths ``exp(phi * n)``).  A *corrupted* voter
reverses the order (``-phi * n + G``); a *rescaled* voter multiplies its
scores by a factor, which changes no ranking inside it but weighs on means.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError


def gumbel_scores(
    rng: np.random.Generator,
    n_voters: int,
    n_systems: int,
    *,
    phi: float,
    corrupted: np.ndarray | None = None,
    scale: np.ndarray | None = None,
) -> np.ndarray:
    """A ``n_voters x n_systems`` score matrix of the model (rows = voters).

    ``corrupted`` (bool per voter) reverses a voter's order; ``scale`` (float
    per voter) multiplies its scores.
    """
    if n_voters < 1 or n_systems < 1:
        raise InvalidParameterError(f"need at least one voter and one system, got {n_voters} x {n_systems}")
    if not np.isfinite(phi) or phi < 0:
        raise InvalidParameterError(f"parameter 'phi' must be a finite number >= 0, got {phi!r}")
    centre = phi * np.arange(n_systems, dtype=float)
    sign = np.ones(n_voters) if corrupted is None else np.where(np.asarray(corrupted, dtype=bool), -1.0, 1.0)
    scores = sign[:, None] * centre[None, :] + rng.gumbel(size=(n_voters, n_systems))
    if scale is not None:
        scores *= np.asarray(scale, dtype=float)[:, None]
    return scores


def system_names(n_systems: int) -> list[str]:
    """``S000, S001, ...``: sortable names; the true order is by index (the last is best)."""
    width = max(3, len(str(n_systems - 1)))
    return [f"S{i:0{width}d}" for i in range(n_systems)]


def true_ranking(n_systems: int) -> dict[str, float]:
    """The true ranking as ``system -> score`` (higher is better)."""
    return {name: float(i) for i, name in enumerate(system_names(n_systems))}


def synthetic_ballots(
    n_systems: int,
    n_voters: int,
    *,
    phi: float,
    seed: int,
    corrupted_fraction: float = 0.0,
    missing_fraction: float = 0.0,
    n_groups: int = 1,
) -> pl.DataFrame:
    """Ballots (``voter, system, score, group``) of a synthetic benchmark.

    The first ``round(corrupted_fraction * n_voters)`` voters are corrupted;
    each (voter, system) score is missing (null) with probability
    ``missing_fraction``; voters are split round-robin into ``n_groups`` groups.
    """
    for name, value in (("corrupted_fraction", corrupted_fraction), ("missing_fraction", missing_fraction)):
        if not 0.0 <= value <= 1.0:
            raise InvalidParameterError(f"parameter {name!r} must be in [0, 1], got {value!r}")
    rng = np.random.default_rng(seed)
    corrupted = np.arange(n_voters) < round(corrupted_fraction * n_voters)
    scores = gumbel_scores(rng, n_voters, n_systems, phi=phi, corrupted=corrupted)
    if missing_fraction > 0:
        scores[rng.random(scores.shape) < missing_fraction] = np.nan
    voter_index = np.repeat(np.arange(n_voters), n_systems)
    return pl.DataFrame(
        {
            "voter": voter_index,
            "system": np.tile(np.array(system_names(n_systems)), n_voters),
            "score": scores.ravel(),
            "group": voter_index % max(n_groups, 1),
        }
    ).with_columns(
        pl.format("v{}", pl.col("voter").cast(pl.String).str.zfill(7)).alias("voter"),
        pl.format("g{}", pl.col("group").cast(pl.String).str.zfill(3)).alias("group"),
        pl.col("score").fill_nan(None),
    )
