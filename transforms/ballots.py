"""Scores to ballots and rank tables: the views the aggregators share.

A **voter** casts a preference over systems: a (task, metric) at task level,
a (task, metric, instance) at instance level.  Ballots carry the score
oriented so that higher is better (the metric catalog says which metrics are
lower-is-better), the voter's weight, and its group (the rule is
:data:`warehouse.schema.GROUP_KEYS`: the catalog's group at task level, the
voter's ``task | metric`` at instance level).  The catalog is read as
resolved (:mod:`transforms.catalog`): nothing is filled in here.

Metrics the catalog marks ``is_ranked = false`` (a leaderboard's own average,
length statistics) are left out unless asked for.  Everything here is a
Polars expression over whole frames, lazy where the input is lazy.
"""

from __future__ import annotations

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.transforms.catalog import with_catalog
from scorehouse.warehouse.schema import GROUP_KEYS, LEVELS, VOTER_KEYS, VOTER_SEPARATOR


class BallotsError(ScorehouseError, ValueError):
    """The scores cannot be turned into ballots as asked (unknown benchmark or level)."""


def _at_level(scores: pl.LazyFrame, level: str) -> pl.LazyFrame:
    if level not in LEVELS:
        raise BallotsError(f"level must be one of {LEVELS}, got {level!r}")
    return scores.filter(pl.col("instance").is_null() if level == "task" else pl.col("instance").is_not_null())


def voter_group(level: str) -> pl.Expr:
    """The group of a voter at ``level`` (:data:`warehouse.schema.GROUP_KEYS`), over catalog-joined rows."""
    return pl.concat_str(list(GROUP_KEYS[level]), separator=VOTER_SEPARATOR)


def _oriented(scores: pl.LazyFrame, metrics: pl.LazyFrame, include_unranked: bool) -> pl.LazyFrame:
    joined = with_catalog(scores, metrics)
    if not include_unranked:
        joined = joined.filter(pl.col("is_ranked"))
    return joined.with_columns(
        oriented=pl.when(pl.col("higher_is_better")).then(pl.col("score")).otherwise(-pl.col("score")),
    )


def ballots(
    scores: pl.LazyFrame | pl.DataFrame,
    metrics: pl.LazyFrame | pl.DataFrame,
    *,
    level: str,
    include_unranked: bool = False,
) -> pl.LazyFrame:
    """The contract's ballots (``voter, system, score, weight, group, group_weight``) of the given scores.

    ``scores`` should hold one benchmark (several benchmarks are allowed, and
    their voters are then kept apart by the benchmark name in the voter).
    """
    oriented = _oriented(_at_level(scores.lazy(), level), metrics.lazy(), include_unranked)
    return oriented.select(
        voter=pl.concat_str(list(VOTER_KEYS[level]), separator=VOTER_SEPARATOR),
        system=pl.col("system"),
        score=pl.col("oriented"),
        weight=pl.col("weight"),
        group=voter_group(level),
        group_weight=pl.col("group_weight"),
    )


def rank_table(
    scores: pl.LazyFrame | pl.DataFrame,
    metrics: pl.LazyFrame | pl.DataFrame,
    *,
    level: str,
    include_unranked: bool = False,
) -> pl.LazyFrame:
    """Ranks of the systems within every voter (``task_ranks`` / ``instance_ranks``).

    Columns: benchmark, task, metric, [instance,] system, score (raw),
    rank (1 = best after orientation, ties share the smallest rank, null for a
    missing score) and n_ranked (systems with a score for that voter).  Rows
    keep the order of ``scores`` (like the SQL views, no sort: sorting millions
    of string keys would cost more than ranking them).
    """
    oriented = _oriented(_at_level(scores.lazy(), level), metrics.lazy(), include_unranked)
    keys = ["benchmark", *VOTER_KEYS[level]]
    return oriented.select(
        *keys,
        "system",
        "score",
        rank=(-pl.col("oriented")).rank(method="min").over(keys).cast(pl.Int64),
        n_ranked=pl.col("oriented").count().over(keys).cast(pl.Int64),
    )
