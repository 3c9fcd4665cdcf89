"""Instance-level scores of one partition → a dense voters x systems matrix, without string keys.

The rank flow ranks a large benchmark partition by partition (a task, or a
few): ranks never cross a (task, metric, instance) voter, so each partition's
voters are complete in it.  Building the contract's ballots first (a voter
name ``task | metric | instance`` per row) and then a
:class:`aggregators.profile.Profile` costs more than the methods themselves at
this size, so this module goes straight to the matrix: systems, (task, metric)
groups and instances become integer codes by casting to ``Enum`` types (a
lookup, no sort and no join of the rows), and the voter code is
``group * instances + instance``.

The result carries what :func:`transforms.ballots.ballots` would: scores
oriented higher-is-better by the metric catalog, metrics with
``is_ranked = false`` left out, each voter's weight (its metric's) and group
(its ``task | metric``).  A voter exists when it has a row, even with a null
score, as in a profile built from ballots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from transforms.ballots import VOTER_SEPARATOR
from warehouse.schema import METRICS


class DensePartitionError(ValueError):
    """A partition cannot be made dense: a (voter, system) cell scored twice, or an unknown system."""


@dataclass(frozen=True)
class DensePartition:
    """``scores[v, s]`` (NaN = missing), ``weights[v]``, ``groups[v]`` (index into ``group_names``)."""

    systems: tuple[str, ...]
    scores: np.ndarray
    weights: np.ndarray
    groups: np.ndarray
    group_names: tuple[str, ...]


def _codes(rows: pl.DataFrame, columns: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
    """Per String column: its sorted distinct values and each row's index among them.

    One Categorical cast of all the columns (a hash pass, columns in
    parallel), then NumPy over the integer ids: the first row of every id
    names it, and a lookup table renumbers the ids in name order.  No sort of
    the rows and no join.
    """
    physical = rows.select(pl.col(list(columns)).cast(pl.Categorical).to_physical())
    out = []
    for name in columns:
        ids = physical.get_column(name).to_numpy().astype(np.int64)
        first = np.full(int(ids.max()) + 1 if ids.size else 1, -1, dtype=np.int64)
        first[ids[::-1]] = np.arange(ids.size - 1, -1, -1)
        present = np.flatnonzero(first >= 0)
        names = rows.get_column(name).gather(first[present]).to_list()
        order = np.argsort(np.array(names, dtype=object), kind="stable")
        table = np.full(first.size, -1, dtype=np.int64)
        table[present[order]] = np.arange(present.size)
        out.append(([names[i] for i in order], table[ids]))
    return out


def dense_partition(scores: pl.DataFrame, metrics: pl.DataFrame, systems: Sequence[str]) -> DensePartition:
    """The dense matrix of the instance-level ``scores`` (one benchmark) over ``systems``.

    ``systems`` is the benchmark's full, sorted list of systems, so partitions
    share columns; a system of ``scores`` not in it is a
    :class:`DensePartitionError`, as is a (task, metric, instance, system)
    cell scored twice (read current scores, which are deduplicated).
    """
    rows = scores.filter(pl.col("instance").is_not_null()) if scores.get_column("instance").null_count() else scores
    (tasks, task), (metric_names, metric), (instances, instance), (names, system_code) = _codes(
        rows, ("task", "metric", "instance", "system")
    )
    unknown = sorted(set(names) - set(systems))
    if unknown:
        raise DensePartitionError(
            f"system {unknown[0]!r} is not among the benchmark's {len(systems)} systems; "
            f"pass the benchmark's full list of systems"
        )
    system = np.searchsorted(np.array(systems, dtype=object), np.array(names, dtype=object))[system_code]
    # The catalog entry of every (task, metric) pair: a tasks x metrics table, not a join of the rows.
    benchmark = rows.get_column("benchmark")[0] if rows.height else ""
    pairs = pl.DataFrame(
        {"task": np.repeat(tasks, len(metric_names)).tolist(), "metric": metric_names * len(tasks)},
        schema={"task": pl.String, "metric": pl.String},
    )
    catalog = pairs.join(
        metrics.select(pl.col(c).cast(t) for c, t in METRICS.items()).filter(pl.col("benchmark") == benchmark),
        on=["task", "metric"], how="left", maintain_order="left",
    )
    ranked = catalog.get_column("is_ranked").fill_null(True).to_numpy()
    sign = np.where(catalog.get_column("higher_is_better").fill_null(True).to_numpy(), 1.0, -1.0)
    weight = catalog.get_column("weight").fill_null(1.0).to_numpy().astype(float)
    group_names = catalog.select(pl.concat_str("task", "metric", separator=VOTER_SEPARATOR)).to_series().to_list()

    n_systems, n_instances, n_groups = len(systems), len(instances), len(group_names)
    group = task * len(metric_names) + metric
    keep = ranked[group]
    group, instance, system = group[keep], instance[keep], system[keep]
    values = rows.get_column("score").fill_null(np.nan).to_numpy()[keep]
    voter = group * n_instances + instance
    cell = voter * n_systems + system
    counts = np.bincount(cell, minlength=n_groups * n_instances * n_systems)
    if (counts > 1).any():
        first = int(np.flatnonzero(counts > 1)[0])
        g, rest = divmod(first, n_instances * n_systems)
        raise DensePartitionError(
            f"voter {group_names[g]}{VOTER_SEPARATOR}{instances[rest // n_systems]} scores system "
            f"{systems[rest % n_systems]!r} {counts[first]} times; read the current scores (deduplicated)"
        )
    present = np.flatnonzero(counts.reshape(-1, n_systems).any(axis=1))
    matrix = np.full((n_groups * n_instances, n_systems), np.nan)
    matrix[voter, system] = values * sign[group]
    return DensePartition(
        systems=tuple(systems),
        scores=matrix[present],
        weights=weight[present // n_instances],
        groups=present // n_instances,
        group_names=tuple(group_names),
    )
