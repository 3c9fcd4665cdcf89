"""What several flows share: the I/O task decorator and the catalog refresh (the rules and the freshness check: :mod:`flows.catalog_state`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State, TaskRun

from scorehouse.flows.catalog_state import rebuild
from scorehouse.warehouse.storage import Warehouse

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


@io_task
def refresh_catalog(warehouse: Warehouse) -> None:
    """Re-resolve the metric catalog and rebuild the catalog's views (aside, then swapped in)."""
    with warehouse.write_lock():
        rebuild(warehouse)
