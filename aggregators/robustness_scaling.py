"""Rescaling: multiply one task's scores by a factor and see which methods move.

Colombo, Noiry, Irurozki and Clémençon (2022), "What are the best systems?
New perspectives on NLP benchmarking" (NeurIPS), section 6: a task reported
on another scale (a percentage instead of a fraction, a count instead of a
rate) changes no ranking inside the task, so a method that depends only on
the tasks' rankings (Borda, Copeland, ...) cannot move, while a mean of raw
scores can.  For every task (group, see :mod:`aggregators.robustness`) and
every factor, the voters of that task have their scores multiplied by the
factor, each method ranks the result, and the ranking is compared with the
method's ranking of the unscaled benchmark.  Deterministic: one repetition.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.robustness import (
    Params,
    check_methods,
    concat,
    method_scores,
    positive_voters,
    rows,
    sub_profile,
    units_of,
)

EXPERIMENT = "scaling"
DEFAULT_FACTORS = (0.01, 0.1, 0.5, 2.0, 10.0, 100.0)


def rescaling(
    profile: Profile,
    methods: Sequence[str],
    *,
    factors: Sequence[float] = DEFAULT_FACTORS,
    params: Params = None,
) -> pl.DataFrame:
    """The rescaling table (:data:`aggregators.robustness.TABLE_SCHEMA`): condition = the
    rescaled task, setting = the factor, repetition 0."""
    parameters = check_methods(methods, params)
    factors = list(factors)
    bad = [f for f in factors if not (isinstance(f, (int, float)) and np.isfinite(f) and f > 0)]
    if not factors or bad:
        raise InvalidParameterError(f"parameter 'factors' must be positive finite numbers, got {factors!r}")
    profile = positive_voters(profile)
    units = units_of(profile)
    references = {m: method_scores(m, profile, parameters[m]) for m in methods}
    frames = []
    for u, task in enumerate(units.names):  # a loop over tasks
        in_task = (units.of_voter == u)[:, None]
        for factor in factors:
            scaled = sub_profile(profile, scores=np.where(in_task, profile.scores * factor, profile.scores))
            for method in methods:
                scores = method_scores(method, scaled, parameters[method])
                frames.append(rows(EXPERIMENT, method, task, factor, references[method], scores[None, :]))
    return concat(frames)
