"""Combinable partial sums: rank a benchmark partition by partition and add up.

Instance-level methods take every (task, metric, instance) as a voter, and
ranks never cross a voter, so a benchmark too large for one dense profile is
ranked one partition (a set of whole groups, e.g. a task) at a time.  A method
that can be run this way declares a partition form next to its code
(:class:`aggregators.registry.PartitionForm`): it reduces the
:class:`Voters` of one partition to a :class:`Partial` of sums over them, the
partials of disjoint partitions add up (:func:`combine`), and the form's
finish gives the scores of the whole-table method
(:func:`aggregators.execution.finish_partitioned`).  This module is only the
generic machinery; the sums each method needs are defined with the method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scorehouse.aggregators.errors import InvalidBallotsError


@dataclass(frozen=True)
class Voters:
    """The voters of one partition, dense: ``scores[v, s]`` (higher is better, NaN = missing).

    ``systems`` are the benchmark's systems this partition scores (a sparse
    benchmark's partition scores few of them: its matrix has only their
    columns); ``absent`` counts the benchmark's other systems, which every
    voter of the partition misses.  ``weights[v]`` is the voter's weight and
    ``groups[v]`` the index of its group in ``group_names``; ``group_weights[g]``
    is group ``g``'s weight in a two-step run (None: every group weighs the same).
    """

    systems: tuple[str, ...]
    scores: np.ndarray
    weights: np.ndarray
    groups: np.ndarray
    group_names: tuple[str, ...]
    group_weights: np.ndarray | None = None
    absent: int = 0


@dataclass(frozen=True)
class Partial:
    """Sums over the voters of one or more partitions of a benchmark (systems in a fixed order).

    ``totals`` add up across partitions; ``by_group`` has one row per group of
    ``group_names`` and is stacked across partitions (a group lies in one
    partition).  Every axis of a total, and every axis but the first of a
    per-group sum, runs over ``systems``: partials over different systems are
    widened to their union, with zero sums for the systems a partition lacks
    (:func:`widen`).  ``n_counted`` voters of the ``n_voters`` are in the sums
    (fewer when a form uses only the voters that scored every system), with
    total weight ``weight``.
    """

    systems: tuple[str, ...]
    n_voters: int
    n_counted: int
    weight: float
    totals: Mapping[str, np.ndarray] = field(default_factory=dict)
    group_names: tuple[str, ...] = ()
    by_group: Mapping[str, np.ndarray] = field(default_factory=dict)

    def total(self, key: str) -> np.ndarray:
        """The summed ``key``, or :class:`InvalidBallotsError` naming what is there."""
        return _lookup(self.totals, key)

    def per_group(self, key: str) -> np.ndarray:
        """The per-group ``key`` (one row per group), or :class:`InvalidBallotsError`."""
        return _lookup(self.by_group, key)


def _lookup(sums: Mapping[str, np.ndarray], key: str) -> np.ndarray:
    if key not in sums:
        raise InvalidBallotsError(
            f"the partial sums lack {key!r} (they hold {sorted(sums)}): finish a partial with the form that made it"
        )
    return sums[key]


def group_totals(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """``out[g, s] = sum of values[v, s] over the voters v of group g`` (a loop over systems)."""
    if values.shape[1] == 0:  # a partition whose voters scored no system
        return np.zeros((n_groups, 0))
    return np.column_stack(
        [np.bincount(groups, weights=values[:, s], minlength=n_groups) for s in range(values.shape[1])]
    ).reshape(n_groups, values.shape[1])


def widen(partial: Partial, systems: Sequence[str]) -> Partial:
    """``partial`` over ``systems`` (a superset of its own, any order): zero sums for the systems it lacks."""
    position = {name: i for i, name in enumerate(systems)}
    lacking = [name for name in partial.systems if name not in position]
    if lacking:
        raise InvalidBallotsError(
            f"partial sums over {lacking} cannot be widened to systems {list(systems)}: pass every system"
        )
    columns = np.array([position[name] for name in partial.systems], dtype=np.int64)

    def spread(values: np.ndarray, leading: int) -> np.ndarray:
        out = np.zeros(values.shape[:leading] + (len(systems),) * (values.ndim - leading), dtype=values.dtype)
        out[np.ix_(*[np.arange(size) for size in values.shape[:leading]], *[columns] * (values.ndim - leading))] = values
        return out

    return Partial(
        systems=tuple(systems),
        n_voters=partial.n_voters,
        n_counted=partial.n_counted,
        weight=partial.weight,
        totals={k: spread(v, 0) for k, v in partial.totals.items()},
        group_names=partial.group_names,
        by_group={k: spread(v, 1) for k, v in partial.by_group.items()},
    )


def combine(partials: Sequence[Partial], systems: Sequence[str] | None = None) -> Partial:
    """The :class:`Partial` of the union of disjoint partitions (same sums, distinct groups).

    Partials over different systems are first widened (:func:`widen`) to
    ``systems`` (default: the sorted union of theirs).
    """
    if not partials:
        raise InvalidBallotsError("no partition to combine: the benchmark has no instance-level scores")
    if systems is None:
        systems = sorted({name for p in partials for name in p.systems})
    partials = [p if p.systems == tuple(systems) else widen(p, systems) for p in partials]
    first = partials[0]
    for other in partials[1:]:
        if set(other.totals) != set(first.totals) or set(other.by_group) != set(first.by_group):
            raise InvalidBallotsError(
                f"partials of different forms cannot be combined: sums {sorted(first.totals) + sorted(first.by_group)} "
                f"and {sorted(other.totals) + sorted(other.by_group)}"
            )
    names = [g for p in partials for g in p.group_names]
    if len(set(names)) != len(names):
        raise InvalidBallotsError("a group appears in two partitions: partitions must hold whole tasks")
    return Partial(
        systems=first.systems,
        n_voters=sum(p.n_voters for p in partials),
        n_counted=sum(p.n_counted for p in partials),
        weight=sum(p.weight for p in partials),
        totals={k: np.sum([p.totals[k] for p in partials], axis=0) for k in first.totals},
        group_names=tuple(names),
        by_group={k: np.concatenate([p.by_group[k] for p in partials]) for k in first.by_group},
    )
