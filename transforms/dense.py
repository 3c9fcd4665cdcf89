"""Instance-level scores of one partition → a dense voters x systems matrix, without string keys.

The rank flow ranks a large benchmark partition by partition (a task, or a
few): ranks never cross a (task, metric, instance) voter, so each partition's
voters are complete in it.  Building the contract's ballots first (a voter
name ``task | metric | instance`` per row) and then a
:class:`aggregators.profile.Profile` costs more than the methods themselves at
this size, so this module goes straight to the matrix: tasks, metrics,
instances and systems become integer codes read from the Arrow dictionaries
the Parquet files store them in (no string decoded per row, no sort and no
join of the rows), and the voter code is ``group * instances + instance``.

The result carries what :func:`transforms.ballots.ballots` would: scores
oriented higher-is-better by the (resolved) metric catalog, metrics with
``is_ranked = false`` left out, each voter's weight (its metric's) and group
(:func:`transforms.ballots.voter_group`: its ``task | metric``).  A voter
exists when it has a row, even with a null score, as in a profile built from
ballots.  A (task, metric) with rows but no catalog entry is a
:class:`transforms.catalog.MetricCatalogError`, as in the ballots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.transforms.ballots import voter_group
from scorehouse.transforms.catalog import uncovered
from scorehouse.warehouse.schema import METRICS, VOTER_SEPARATOR


class DensePartitionError(ScorehouseError, ValueError):
    """A partition cannot be made dense: a (voter, system) cell scored twice, or an unknown system."""


@dataclass(frozen=True)
class DensePartition:
    """``scores[v, s]`` (NaN = missing), ``weights[v]``, ``groups[v]`` (index into ``group_names``).

    ``systems`` are the benchmark's systems the partition scores (its
    columns); ``absent`` counts the benchmark's systems it does not score.
    ``group_weights[g]`` is group ``g``'s weight in two-step runs (the catalog's ``group_weight``).
    """

    systems: tuple[str, ...]
    scores: np.ndarray
    weights: np.ndarray
    groups: np.ndarray
    group_names: tuple[str, ...]
    group_weights: np.ndarray
    absent: int


def _codes(table: pa.Table, columns: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
    """Per string column: its sorted distinct values and each row's index among them.

    A dictionary-encoded column (as read from Parquet) is used as it is; any
    other is encoded first.  The chunks' dictionaries are unified, so every
    row is an index into one list of names; a lookup table renumbers the
    indices in name order, leaving out names no row uses.
    """
    out = []
    for name in columns:
        column = table.column(name)
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        column = column.unify_dictionaries()
        if column.num_chunks == 0:
            out.append(([], np.zeros(0, dtype=np.int32)))
            continue
        dictionary = column.chunk(0).dictionary
        ids = np.concatenate([chunk.indices.to_numpy() for chunk in column.chunks])
        used = np.flatnonzero(np.bincount(ids, minlength=len(dictionary)))
        names = dictionary.take(pa.array(used)).to_pylist()
        order = np.argsort(np.array(names, dtype=object), kind="stable")
        lookup = np.full(len(dictionary), -1, dtype=np.int32)  # 32-bit codes: half the memory traffic of int64
        lookup[used[order]] = np.arange(used.size, dtype=np.int32)
        out.append(([names[i] for i in order], lookup[ids]))
    return out


def dense_partition(scores: pa.Table, metrics: pl.DataFrame, systems: Sequence[str]) -> DensePartition:
    """The dense matrix of the instance-level ``scores`` (one benchmark) over the systems they score.

    ``systems`` is the benchmark's full, sorted list of systems; the matrix
    has a column for each of them that ``scores`` has rows of, and no other
    (a partition of a benchmark whose tasks have their own systems is as
    narrow as its tasks; the partial sums are widened to the benchmark's
    systems when partitions are combined).  A system of ``scores`` not in it is a
    :class:`DensePartitionError`, as is a (task, metric, instance, system)
    cell scored twice (read current scores, which are deduplicated).
    ``scores`` has the columns of :data:`warehouse.schema.SCORES`, its string
    columns best dictionary-encoded (see ``warehouse.partitions.read_partition_arrow``).
    """
    rows = scores.filter(pc.is_valid(scores.column("instance"))) if scores.column("instance").null_count else scores
    (tasks, task), (metric_names, metric), (instances, instance), (names, system_code) = _codes(
        rows, ("task", "metric", "instance", "system")
    )
    unknown = sorted(set(names) - set(systems))
    if unknown:
        raise DensePartitionError(
            f"system {unknown[0]!r} is not among the benchmark's {len(systems)} systems; "
            f"pass the benchmark's full list of systems"
        )
    system = system_code  # columns: the partition's own systems, in the benchmark's (sorted) order
    # The catalog entry of every (task, metric) pair: a tasks x metrics table, not a join of the rows.
    benchmark = rows.column("benchmark")[0].as_py() if rows.num_rows else ""
    pairs = pl.DataFrame(
        {"task": np.repeat(tasks, len(metric_names)).tolist(), "metric": metric_names * len(tasks)},
        schema={"task": pl.String, "metric": pl.String},
    )
    catalog = pairs.join(
        metrics.select(pl.col(c).cast(t) for c, t in METRICS.items()).filter(pl.col("benchmark") == benchmark),
        on=["task", "metric"], how="left", maintain_order="left",
    )
    group = task * len(metric_names) + metric
    # The cross product also holds (task, metric) pairs no row has: only the pairs with rows need an entry.
    used = np.bincount(group, minlength=catalog.height) > 0
    absent = catalog.get_column("is_ranked").is_null().to_numpy() & used
    if absent.any():
        first = catalog.row(int(np.flatnonzero(absent)[0]), named=True)
        raise uncovered((benchmark, first["task"], first["metric"]), int(absent.sum()))
    # Pairs without rows index nothing below: any value serves (these keep the all-ranked, all-higher fast paths).
    ranked = catalog.get_column("is_ranked").fill_null(True).to_numpy()
    sign = np.where(catalog.get_column("higher_is_better").fill_null(True).to_numpy(), 1.0, -1.0)
    weight = catalog.get_column("weight").fill_null(0.0).to_numpy().astype(float)
    group_names = catalog.select(voter_group("instance")).to_series().to_list()

    n_systems, n_instances, n_groups = len(names), len(instances), len(group_names)
    values = pc.fill_null(rows.column("score"), np.nan).to_numpy()
    if not ranked.all():
        keep = ranked[group]
        group, instance, system, values = group[keep], instance[keep], system[keep], values[keep]
    cell = (group.astype(np.int64) * n_instances + instance) * n_systems + system  # voter * systems + system
    counts = np.bincount(cell, minlength=n_groups * n_instances * n_systems)
    if counts.max(initial=0) > 1:
        first = int(np.flatnonzero(counts > 1)[0])
        g, rest = divmod(first, n_instances * n_systems)
        raise DensePartitionError(
            f"voter {group_names[g]}{VOTER_SEPARATOR}{instances[rest // n_systems]} scores system "
            f"{names[rest % n_systems]!r} {counts[first]} times; read the current scores (deduplicated)"
        )
    matrix = np.full(n_groups * n_instances * n_systems, np.nan)
    matrix[cell] = values * sign[group] if (sign < 0).any() else values
    matrix = matrix.reshape(-1, n_systems)
    has_row = counts.reshape(-1, n_systems).any(axis=1)
    present = np.flatnonzero(has_row)
    if present.size < has_row.size:
        matrix = matrix[present]
    return DensePartition(
        systems=tuple(names),
        scores=matrix,
        weights=weight[present // n_instances],
        groups=present // n_instances,
        group_names=tuple(group_names),
        group_weights=catalog.get_column("group_weight").fill_null(1.0).to_numpy().astype(float),
        absent=len(systems) - len(names),
    )
