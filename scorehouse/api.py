"""The Python API: rank a pandas, Polars or pyarrow table in a notebook, or open a warehouse.

``scorehouse.rank`` and ``scorehouse.rank_battles`` run the registered methods
(:mod:`scorehouse.aggregators`) on a table in memory, nothing written anywhere;
``scorehouse.Warehouse`` (:mod:`scorehouse.api_warehouse`) ingests tables into a warehouse home,
ranks it into snapshots and queries it.  A table is read once at the boundary
(:mod:`scorehouse.api_tables`, the same reading of columns as the ``user-table`` format of
``scorehouse ingest``), the ranking comes back as a table of the caller's kind, and every
refusal is a :class:`scorehouse.ScorehouseError`.

>>> import pandas as pd, scorehouse
>>> scores = pd.DataFrame({"glue": [80.0, 85.0, 70.0], "squad": [90.0, 88.0, 60.0]},
...                       index=pd.Index(["bert", "roberta", "lstm"], name="system"))
>>> scorehouse.rank(scores)
    system  rank  score   tied
0     bert     1    3.0   True
1  roberta     1    3.0   True
2     lstm     3    0.0  False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from scorehouse.aggregators import REGISTRY, aggregate_battles, battle_methods, run
from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.aggregators.schemas import MODEL_A, MODEL_B, TSTAMP, WEIGHT, WINNER
from scorehouse.api_tables import (
    ArgumentError, ScoreTable, as_kind, require_column, score_table, table_kind, to_polars,
)
from scorehouse.api_warehouse import Warehouse
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.catalog import declared_rules, resolve_metrics
from scorehouse.transforms.parsers.user_table import DEFAULT_METRIC, LINE, table_rows
from scorehouse.warehouse.schema import PARSER_REASON, SCORES

__all__ = ["ArgumentError", "ScorehouseError", "Warehouse", "rank", "rank_battles"]

RANKING_COLUMNS = ("system", "rank", "score", "tied")  # the caller's order: who, where, on what, shared
BENCHMARK = "data"  # the one benchmark of a table ranked in memory (the ballots' voters never show it)


def rank(
    data: Any,
    method: str = "borda",
    *,
    system: str = "system",
    task: str = "task",
    score: str = "score",
    metric: str | None = None,
    instance: str | None = None,
    weight: str | None = None,
    higher_is_better: bool = True,
    two_step: bool = False,
    params: Mapping[str, Any] | None = None,
) -> Any:
    """Rank the systems of a table of scores with ``method``; a table of the caller's kind comes back.

    ``data`` is a pandas or Polars DataFrame (or LazyFrame) or a pyarrow Table, in one of two shapes:

    - **long**, one score per row: ``system``, ``task`` and ``score`` name its columns, ``metric``
      and ``instance`` the columns of the metric and the instance where it has them (with
      ``instance`` every (task, metric, instance) is a voter, else every (task, metric)), and
      ``weight`` a column holding each task's weight (one value per task and metric);
    - **wide**, systems x tasks (it has no column ``score``): the systems in the ``system`` column
      or the pandas index, every other column a task of numbers.

    A missing score is null or NaN.  ``higher_is_better=False`` says every score is an error or a
    cost.  ``method`` is any registered method (``scorehouse.aggregators.REGISTRY`` lists them, with
    their parameters), ``params`` its own parameters (``{"ties": "min"}``), ``two_step=True`` ranks within every task first
    (within every (task, metric) at instance level), then across them.

    Returns ``system, rank, score, tied``: rank 1 is the best, tied systems share the smallest rank,
    ``score`` is the method's (higher is better); sorted by rank, then system.

    Borda on a wide table, systems in a column: a system gets a point for every system it beats on a
    task (a tie: half a point each), ``a`` 2 + 1, ``b`` 1 + 2, ``c`` 0 + 0:

    >>> import polars as pl, scorehouse
    >>> wide = pl.DataFrame({"system": ["a", "b", "c"], "t1": [0.9, 0.5, 0.1], "t2": [0.2, 0.7, 0.1]})
    >>> scorehouse.rank(wide, "borda")
    shape: (3, 4)
    ┌────────┬──────┬───────┬───────┐
    │ system ┆ rank ┆ score ┆ tied  │
    │ ---    ┆ ---  ┆ ---   ┆ ---   │
    │ str    ┆ i64  ┆ f64   ┆ bool  │
    ╞════════╪══════╪═══════╪═══════╡
    │ a      ┆ 1    ┆ 3.0   ┆ true  │
    │ b      ┆ 1    ┆ 3.0   ┆ true  │
    │ c      ┆ 3    ┆ 0.0   ┆ false │
    └────────┴──────┴───────┴───────┘

    The mean of a long pandas table of error rates (lower is better):

    >>> import pandas as pd
    >>> errors = pd.DataFrame({"model": ["a", "a", "b", "b"], "dataset": ["x", "y", "x", "y"],
    ...                        "wer": [0.10, 0.30, 0.20, 0.25]})
    >>> scorehouse.rank(errors, "mean", system="model", task="dataset", score="wer", higher_is_better=False)
      system  rank  score   tied
    0      a     1 -0.200  False
    1      b     2 -0.225  False
    """
    kind = table_kind(data, "data")
    check_method(method, tuple(REGISTRY), "rank")
    check_options(higher_is_better=higher_is_better, two_step=two_step, params=params)
    table = score_table(data, system=system, task=task, score=score, metric=metric, instance=instance, weight=weight)
    result = run(method, table_ballots(table, higher_is_better), two_step=two_step, params=params)
    return as_kind(result.ranking.select(RANKING_COLUMNS), kind)


def rank_battles(
    battles: Any,
    method: str = "bradley_terry",
    *,
    model_a: str = MODEL_A,
    model_b: str = MODEL_B,
    winner: str = WINNER,
    weight: str | None = None,
    tstamp: str | None = None,
    bothbad: str = "tie",
    params: Mapping[str, Any] | None = None,
) -> Any:
    """Rank the systems of pairwise battles (an arena's votes) with ``method``; the caller's kind of table back.

    ``battles`` has one row per battle: the columns ``model_a`` and ``model_b`` name the two systems,
    ``winner`` holds ``"model_a"``, ``"model_b"``, ``"tie"`` or ``"tie (bothbad)"`` (as the public
    arena dumps); ``weight`` names a column of battle weights, ``tstamp`` the column giving the order
    the battles were fought in (what Elo plays them in).  ``bothbad="drop"`` leaves both-bad ties out
    instead of counting them as ties.  ``method`` is a method with a battles form
    (``bradley_terry``, ``elo``, ...), ``params`` its parameters.

    Returns ``system, rank, score, tied`` as :func:`rank` does.

    Bradley-Terry on three battles, ``a`` beating ``b`` twice and tying once: a tie is half a win
    each way, and the prior (``params={"prior": 0.5}``, the default) a virtual tie, so ``a`` has 3 wins
    against ``b``'s 1 and the centred log-strengths are +-log(3)/2:

    >>> import pandas as pd, scorehouse
    >>> arena = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "b", "a"],
    ...                       "winner": ["model_a", "model_a", "tie"]})
    >>> scorehouse.rank_battles(arena)
      system  rank     score   tied
    0      a     1  0.549306  False
    1      b     2 -0.549306  False
    """
    kind = table_kind(battles, "battles")
    check_method(method, battle_methods(), "rank_battles")
    check_options(params=params)
    frame = to_polars(battles, "battles")
    named = {MODEL_A: ("model_a", model_a), MODEL_B: ("model_b", model_b), WINNER: ("winner", winner),
             WEIGHT: ("weight", weight), TSTAMP: ("tstamp", tstamp)}
    for argument, column in named.values():
        if column is not None:
            require_column(frame, argument, column)
    contract = frame.select(pl.col(column).alias(role) for role, (_, column) in named.items() if column is not None)
    result = aggregate_battles(method, contract, params, bothbad=bothbad)
    return as_kind(result.ranking.select(RANKING_COLUMNS), kind)


def check_method(method: Any, methods: tuple[str, ...], function: str) -> None:
    """:class:`ArgumentError` unless ``method`` is one of ``methods``."""
    if not isinstance(method, str) or method not in methods:
        raise ArgumentError(f"{function}: method={method!r} is not one of the methods it runs: {', '.join(sorted(methods))}")


def check_options(
    *, higher_is_better: Any = True, two_step: Any = False, params: Any = None,
) -> None:
    """:class:`ArgumentError` for a flag that is not a bool, or ``params`` that is not a mapping."""
    for argument, value in (("higher_is_better", higher_is_better), ("two_step", two_step)):
        if not isinstance(value, bool):
            raise ArgumentError(f"{argument} must be True or False, got {value!r}")
    if params is not None and not isinstance(params, Mapping):
        raise ArgumentError(f"params must be a mapping of the method's parameters (e.g. {{'ties': 'min'}}), got {params!r}")


def table_ballots(table: ScoreTable, higher_is_better: bool) -> pl.DataFrame:
    """The contract's ballots of ``table``: its rows read as the user-table format reads them, oriented and
    weighted by a metric catalog declaring every metric's direction (as ``ingest --higher-is-better`` does)."""
    frame = table.frame.with_columns(pl.lit(None, dtype=pl.Int64).alias(LINE))
    roles = {role: column for role, column in table.columns.items() if role != "weight"}
    values = [c for c in table.frame.columns if c != roles["system"]] if table.wide else [roles["score"]]
    # No default task: a long table here always names its task column, a wide one's columns are its tasks.
    rows = table_rows(frame, roles, values, BENCHMARK, task="")
    check_keys(rows, roles)
    scores = rows.select(
        *(pl.col(c) for c in SCORES if c not in ("score", "load_id")),
        score=pl.col("value").fill_nan(None),
        load_id=pl.lit(None, dtype=pl.String),
    )
    keys = scores.select("benchmark", "task", "metric").unique()
    metrics = resolve_metrics(keys, declared_rules(keys, higher_is_better))
    if "weight" in table.columns:
        metrics = metrics.drop("weight").join(task_weights(table), on=["task", "metric"], how="left")
    level = "instance" if "instance" in roles else "task"
    return make_ballots(scores, metrics, level=level).collect()


def check_keys(rows: pl.DataFrame, roles: Mapping[str, str]) -> None:
    """:class:`ArgumentError` for a row without a system, task or metric name, or an empty instance name."""
    for role in ("system", "task", "metric"):
        if role in roles and rows.get_column(role).null_count():
            raise ArgumentError(f"{role}={roles[role]!r}: the column holds {rows.get_column(role).null_count()} "
                                f"missing (null) name(s); every score needs one")
    if "instance" in roles and rows.get_column(PARSER_REASON).null_count() < rows.height:
        raise ArgumentError(f"instance={roles['instance']!r}: the column holds missing or empty instance names")


def task_weights(table: ScoreTable) -> pl.DataFrame:
    """``task, metric, weight``: the weight of every (task, metric) of a long table, one value each."""
    columns = table.columns
    weights = table.frame.select(
        task=pl.col(columns["task"]).cast(pl.String),
        metric=pl.col(columns["metric"]).cast(pl.String) if "metric" in columns else pl.lit(DEFAULT_METRIC),
        weight=pl.col(columns["weight"]).cast(pl.Float64),
    ).unique()
    repeated = weights.filter(pl.len().over("task", "metric") > 1).sort("task", "metric", "weight")
    if repeated.height:
        first = repeated.row(0, named=True)
        raise ArgumentError(
            f"weight={columns['weight']!r}: a weight is a task's, one value per task and metric, but task "
            f"{first['task']!r} (metric {first['metric']!r}) has the weights "
            f"{repeated.filter(task=first['task'], metric=first['metric']).get_column('weight').to_list()}"
        )
    return weights
