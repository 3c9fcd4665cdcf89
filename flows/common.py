"""What several flows share: the I/O task decorator, the checked metric rules, the catalog refresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

import polars as pl
from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State, TaskRun

from transforms.catalog import check_rules, resolve_metrics
from warehouse.catalog import current_metric_keys, rebuild_catalog
from warehouse.storage import Warehouse, read_metric_rules

P = ParamSpec("P")
R = TypeVar("R")

IO_RETRIES = 2
IO_RETRY_DELAY_SECONDS = 1


def only_io_errors(task: Task, task_run: TaskRun, state: State) -> bool:
    """A task's ``retry_condition_fn``: retry when it failed on I/O (OSError), never on a bug or bad data."""
    return isinstance(state.result(raise_on_failure=False), OSError)


def io_task(fn: Callable[P, R]) -> Task[P, R]:
    """``fn`` as a Prefect task that retries on I/O errors only (a bug or bad data fails at once).

    Every task that retries is built here, so "only I/O retries" holds by
    construction; ``tests/flows/test_retries.py`` checks every task of the
    ``flows`` package against it.
    """
    return task(
        retries=IO_RETRIES, retry_delay_seconds=IO_RETRY_DELAY_SECONDS,
        retry_condition_fn=only_io_errors, cache_policy=NO_CACHE,
    )(fn)


def checked_metric_rules(warehouse: Warehouse) -> pl.DataFrame:
    """The metric rules in precedence order (the user's file first), checked.

    Raises :class:`transforms.catalog.MetricRulesError` naming the file, line,
    column and allowed values: called before anything is written, so a bad
    rules file stops an ingest at once instead of after its loads committed.
    """
    return pl.concat([check_rules(frame, source) for source, frame in read_metric_rules(warehouse)])


@io_task
def refresh_catalog(warehouse: Warehouse) -> None:
    """Re-resolve the metric catalog and rebuild the catalog's views (aside, then swapped in)."""
    with warehouse.write_lock():
        rebuild_catalog(warehouse, resolve_metrics(current_metric_keys(warehouse), checked_metric_rules(warehouse)))
