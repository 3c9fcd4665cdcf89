"""Drop and add tasks: rank on random subsets of the tasks and correlate with the full ranking.

The experiment of Colombo, Noiry, Irurozki and Clémençon (2022), "What are
the best systems? New perspectives on NLP benchmarking" (NeurIPS), section 6
(how stable is a ranking when the benchmark gains or loses tasks), and of
Rofin et al. (2023), "Vote'n'Rank" (EACL), for any registered method.

For every subset size ``k`` from 1 to the number of tasks (groups of
positive weight, see :mod:`aggregators.robustness`) and every repetition, a
subset of ``k`` tasks is drawn uniformly without replacement; each method
ranks the systems on the voters of those tasks alone, and the ranking is
compared with the method's ranking on all tasks.  The dense profile is built
once and sliced; a subset drawn twice for the same size is scored once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.robustness import (
    Params,
    check_count,
    check_methods,
    concat,
    method_scores,
    positive_voters,
    rows,
    seeded,
    sub_profile,
    units_of,
)

EXPERIMENT = "tasks"


def draw_subsets(n_units: int, size: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """``repetitions x size`` unit indices: each row a uniform subset (sorted) of ``size`` of ``n_units``."""
    return np.sort(rng.random((repetitions, n_units)).argsort(axis=1)[:, :size], axis=1)


def task_subsets(
    profile: Profile,
    methods: Sequence[str],
    *,
    repetitions: int,
    seed: int,
    params: Params = None,
    sizes: Sequence[int] | None = None,
) -> pl.DataFrame:
    """The drop-tasks table (:data:`aggregators.robustness.TABLE_SCHEMA`), setting = number of tasks kept.

    ``sizes`` defaults to every size from 1 to the number of tasks.  The
    subsets of a size are the same for every method (drawn from
    ``(seed, size)``), so methods are compared on identical benchmarks.
    """
    parameters = check_methods(methods, params)
    check_count("repetitions", repetitions, 1)
    profile = positive_voters(profile)
    units = units_of(profile)
    n_units = len(units.names)
    sizes = list(range(1, n_units + 1)) if sizes is None else list(sizes)
    for size in sizes:
        check_count("sizes", size, 1)
        if size > n_units:
            from scorehouse.aggregators.errors import InvalidParameterError

            raise InvalidParameterError(f"parameter 'sizes': {size} tasks asked, the benchmark has {n_units}")
    references = {m: method_scores(m, profile, parameters[m]) for m in methods}
    frames = []
    for size in sizes:  # a loop over a handful of subset sizes
        subsets = draw_subsets(n_units, size, repetitions, seeded(seed, size))
        distinct, which = np.unique(subsets, axis=0, return_inverse=True)
        voter_rows = [np.flatnonzero(np.isin(units.of_voter, subset)) for subset in distinct]
        for method in methods:
            scored = np.vstack(
                [method_scores(method, sub_profile(profile, rows=r), parameters[method]) for r in voter_rows]
            )
            frames.append(rows(EXPERIMENT, method, "", size, references[method], scored[which.ravel()]))
    return concat(frames)
