"""Synthetic truth: the error of each method to a known ranking as tasks get corrupted.

The robustness experiment of Colombo, Noiry, Irurozki and Clémençon (2022),
"What are the best systems? New perspectives on NLP benchmarking" (NeurIPS),
section 5, on the Gumbel (Plackett–Luce) model of
:mod:`aggregators.synthetic`: ``n_voters`` tasks score ``n_systems``
systems with dispersion ``phi``; ``c`` of the tasks are corrupted, i.e. they
rank the systems in reverse and report their scores on a scale
``corrupted_scale`` times larger (a lower-is-better metric left unoriented,
a count among rates).  A scale-free rule (Borda, Copeland) stays right as
long as the corrupted tasks are a minority, while the mean follows the
corrupted tasks as soon as their weight ``c x corrupted_scale`` outweighs
the ``n_voters - c`` clean ones.  Each method is compared with the truth.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.robustness import Params, check_count, check_methods, concat, method_scores, rows, seeded
from scorehouse.aggregators.synthetic import gumbel_scores, system_names

EXPERIMENT = "synthetic"


def synthetic_truth(
    methods: Sequence[str],
    *,
    n_systems: int,
    n_voters: int,
    phis: Sequence[float],
    corrupted: Sequence[int],
    repetitions: int,
    seed: int,
    corrupted_scale: float = 10.0,
    params: Params = None,
) -> pl.DataFrame:
    """The synthetic table (:data:`aggregators.robustness.TABLE_SCHEMA`): condition ``phi=<phi>``,
    setting = the number of corrupted tasks, tau and top-k against the true ranking.

    The benchmarks of a (phi, corrupted) cell are the same for every method
    (drawn from ``(seed, phi index, corrupted)``).
    """
    parameters = check_methods(methods, params)
    for name, value, low in (("n_systems", n_systems, 2), ("n_voters", n_voters, 1), ("repetitions", repetitions, 1)):
        check_count(name, value, low)
    for count in corrupted:
        check_count("corrupted", count, 0)
        if count > n_voters:
            raise InvalidParameterError(f"parameter 'corrupted': {count} corrupted tasks asked of {n_voters}")
    if not np.isfinite(corrupted_scale) or corrupted_scale <= 0:
        raise InvalidParameterError(f"parameter 'corrupted_scale' must be positive, got {corrupted_scale!r}")
    systems = tuple(system_names(n_systems))
    voters = tuple(f"t{v:03d}" for v in range(n_voters))
    truth = np.arange(n_systems, dtype=float)
    frames = []
    for p, phi in enumerate(phis):
        for count in corrupted:
            rng = seeded(seed, p, count)
            bad = np.arange(n_voters) < count
            scale = np.where(bad, corrupted_scale, 1.0)
            draws = [gumbel_scores(rng, n_voters, n_systems, phi=phi, corrupted=bad, scale=scale) for _ in range(repetitions)]
            for method in methods:
                scored = np.vstack(
                    [
                        method_scores(method, Profile(systems, voters, d, np.ones(n_voters), ("",) * n_voters), parameters[method])
                        for d in draws
                    ]
                )
                frames.append(rows(EXPERIMENT, method, f"phi={phi:g}", count, truth, scored))
    return concat(frames)
