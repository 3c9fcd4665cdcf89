"""The tables the Python API takes and gives back: pandas, Polars or pyarrow, read as Polars inside.

A caller's table is turned into a Polars frame once, at the boundary (:func:`to_polars`), and a
result goes back as the caller's kind (:func:`as_kind`), so a pandas user gets pandas and an Arrow
user gets Arrow.  :func:`score_table` reads the two shapes a table of scores comes in: long (one
score per row, named columns) or wide (systems x tasks, the systems in the index or a column).

Every refusal is an :class:`ArgumentError` naming the argument and the value received.  pandas and
pyarrow are imported only when the caller's table is one of theirs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import polars as pl

from scorehouse.aggregators.errors import UsageError

KINDS = ("pandas", "polars", "pyarrow")


class ArgumentError(UsageError, ValueError):
    """An argument of the Python API is wrong: the message names it and the value received."""


def table_kind(data: Any, argument: str) -> str:
    """``"pandas"``, ``"polars"`` or ``"pyarrow"``: the kind of table ``data`` is, or :class:`ArgumentError`."""
    if isinstance(data, (pl.DataFrame, pl.LazyFrame)):
        return "polars"
    # A pandas or Arrow table can only come from a module already imported: look there, import nothing.
    pandas, pyarrow = sys.modules.get("pandas"), sys.modules.get("pyarrow")
    if pandas is not None and isinstance(data, pandas.DataFrame):
        return "pandas"
    if pyarrow is not None and isinstance(data, pyarrow.Table):
        return "pyarrow"
    raise ArgumentError(
        f"{argument} must be a pandas DataFrame, a Polars DataFrame or LazyFrame, or a pyarrow Table; "
        f"got {type(data).__module__}.{type(data).__qualname__}"
    )


def to_polars(data: Any, argument: str, index_name: str | None = None) -> pl.DataFrame:
    """``data`` as a Polars DataFrame; a pandas index becomes the column ``index_name`` when there is none.

    The index is left out when there is such a column, or when it is the default row numbers (an
    unnamed RangeIndex), which name nothing.
    """
    kind = table_kind(data, argument)
    if kind == "polars":
        return data.collect() if isinstance(data, pl.LazyFrame) else data
    if kind == "pyarrow":
        return pl.from_arrow(data)
    import pandas as pd

    row_numbers = isinstance(data.index, pd.RangeIndex) and data.index.name is None
    if index_name is None or index_name in data.columns or row_numbers:
        return pl.from_pandas(data)
    return pl.from_pandas(data.rename_axis(index_name), include_index=True)


def as_kind(frame: pl.DataFrame, kind: str) -> Any:
    """``frame`` as a table of ``kind`` (:data:`KINDS`)."""
    if kind == "pandas":
        return frame.to_pandas()
    if kind == "pyarrow":
        return frame.to_arrow()
    return frame


def check_kind(frames: str) -> None:
    """:class:`ArgumentError` unless ``frames`` is ``"pandas"`` or ``"polars"`` (what a warehouse gives back)."""
    if frames not in ("pandas", "polars"):
        raise ArgumentError(f"frames must be 'pandas' or 'polars', got {frames!r}")


def require_column(frame: pl.DataFrame, argument: str, column: Any) -> None:
    """:class:`ArgumentError` unless ``column`` is a column of ``frame``."""
    if not isinstance(column, str) or column not in frame.columns:
        raise ArgumentError(f"{argument}={column!r} is not a column of the table; its columns are {frame.columns}")


@dataclass(frozen=True)
class ScoreTable:
    """A table of scores and the columns that hold each role (what the user-table format calls them).

    ``columns`` maps a role of :data:`transforms.parsers.user_table.ROLES` to its column: a long table
    names ``score``, a wide one has ``score_columns`` (every column but the system's).
    """

    frame: pl.DataFrame
    columns: dict[str, str]

    @property
    def wide(self) -> bool:
        return "score_columns" in self.columns


def score_table(
    data: Any, *, system: str, task: str, score: str, metric: str | None, instance: str | None,
    weight: str | None = None,
) -> ScoreTable:
    """Read ``data`` as a long table (``score`` names one of its columns) or a wide one (it does not).

    Long: ``system``, ``task`` and ``score`` must be columns, ``metric`` and ``instance`` too when given.
    Wide: the systems are the ``system`` column or the pandas index; every other column is a task and
    holds numbers.
    """
    frame = to_polars(data, "data", index_name=system)
    for argument, column in (("system", system), ("task", task), ("score", score)):
        if not isinstance(column, str):
            raise ArgumentError(f"{argument} must name a column (a str), got {column!r}")
    if score in frame.columns:
        named = {"system": system, "task": task, "score": score, "metric": metric, "instance": instance,
                 "weight": weight}
        roles = {role: column for role, column in named.items() if column is not None}
        for role, column in roles.items():
            require_column(frame, role, column)
        if not frame.schema[score].is_numeric():
            raise ArgumentError(f"score={score!r} names a column of {frame.schema[score]}, not numbers")
        return ScoreTable(frame, roles)
    for argument, column in (("metric", metric), ("instance", instance), ("weight", weight)):
        if column is not None:
            raise ArgumentError(
                f"{argument}={column!r} only applies to a long table (one score per row), and this one has no "
                f"score column score={score!r}; its columns are {frame.columns}"
            )
    if system not in frame.columns:
        raise ArgumentError(
            f"the table has no score column score={score!r}, so it is read as wide (systems x tasks), but it has "
            f"no system column system={system!r} and no pandas index naming the systems; its columns are "
            f"{frame.columns}"
        )
    tasks = [c for c in frame.columns if c != system]
    not_numeric = [c for c in tasks if not frame.schema[c].is_numeric()]
    if not tasks or not_numeric:
        raise ArgumentError(
            f"a wide table (no score column score={score!r}) holds one numeric column per task beside "
            f"system={system!r}; got {f'the non-numeric column(s) {not_numeric}' if tasks else 'no other column'} "
            f"among {frame.columns} (select the task columns, or name a long table's columns with system=, task=, score=)"
        )
    return ScoreTable(frame, {"system": system, "score_columns": "*"})
