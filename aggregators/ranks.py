"""Ranks of values within each row, ties by minimum, maximum or average rank: ``scipy.stats.rankdata``'s rule in NumPy.

The methods rank every voter's scores; importing ``scipy.stats`` for that
alone costs most of a second, which a one-method ``scorehouse rank`` should
not pay.  This computes exactly what ``scipy.stats.rankdata(values,
method=..., axis=-1, nan_policy=...)`` returns for the three tie rules used
here (``tests/aggregators/test_ranks.py`` checks it against scipy): sort each
row once (stable), mark where a run of equal values starts and ends, and give
each value the start, end or mid-point position of its run.  NaN sorts last,
so the ranks of the numbers ignore it; with ``nan_policy="omit"`` NaN cells
rank NaN, with ``"propagate"`` a row holding a NaN is NaN throughout.
"""

from __future__ import annotations

import numpy as np

TIE_RULES = ("average", "min", "max")
NAN_POLICIES = ("propagate", "omit")


def rankdata(values: np.ndarray, method: str = "average", nan_policy: str = "propagate") -> np.ndarray:
    """Ranks (1 = smallest, float) along the last axis of a 1-D or 2-D array; see the module docstring."""
    if method not in TIE_RULES:
        raise ValueError(f"unknown tie rule {method!r}; choose one of {TIE_RULES}")
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"unknown nan_policy {nan_policy!r}; choose one of {NAN_POLICIES}")
    array = np.asarray(values, dtype=float)
    rows = np.atleast_2d(array)
    n = rows.shape[1]
    order = np.argsort(rows, axis=1, kind="stable")
    ordered = np.take_along_axis(rows, order, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # NaN != NaN: each NaN is a run of its own
    ends = np.ones(ordered.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    position = np.arange(1, n + 1, dtype=float)
    first = np.maximum.accumulate(np.where(starts, position, 0.0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, n + 1.0)[:, ::-1], axis=1)[:, ::-1]
    ranked = {"min": first, "max": last, "average": (first + last) / 2}[method]
    missing = np.isnan(ordered)
    ranked[missing] = np.nan
    if nan_policy == "propagate":
        ranked[missing.any(axis=1)] = np.nan
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, ranked, axis=1)
    return out.reshape(array.shape)
