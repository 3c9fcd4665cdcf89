"""Tasks shared by several flows."""

from __future__ import annotations

import polars as pl
from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State, TaskRun

from transforms.catalog import check_rules, resolve_metrics
from warehouse.catalog import current_metric_keys, rebuild_catalog
from warehouse.storage import Warehouse, read_metric_rules


@task(retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def refresh_catalog(warehouse: Warehouse) -> None:
    """Re-resolve the metric catalog and rebuild the catalog's views (aside, then swapped in)."""
    with warehouse.write_lock():
        rules = pl.concat([check_rules(frame, source) for source, frame in read_metric_rules(warehouse)])
        rebuild_catalog(warehouse, resolve_metrics(current_metric_keys(warehouse), rules))


def only_io_errors(task: Task, task_run: TaskRun, state: State) -> bool:
    """A task's ``retry_condition_fn``: retry when it failed on I/O (OSError), never on a bug or bad data."""
    return isinstance(state.result(raise_on_failure=False), OSError)
