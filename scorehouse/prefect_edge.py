"""The Prefect edge: the flows and steps of :mod:`scorehouse.runtime` as recorded Prefect flow and task runs.

Imported only by a :func:`scorehouse.runtime.session` that records runs (a Prefect API is
configured), and by ``serve``.  The flows stay plain functions: each is wrapped here, once, by
``prefect.flow`` (a step by ``prefect.task``, I/O steps with the runtime's retry rule), so the
recorded run executes exactly the code a run in process executes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any


def quiet_prefect() -> None:
    """Prefect without analytics or chatter, unless the user configured otherwise (before Prefect is imported)."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


quiet_prefect()

import prefect  # noqa: E402 - its settings are read on import, after quiet_prefect
from prefect.cache_policies import NO_CACHE  # noqa: E402
from prefect.context import FlowRunContext  # noqa: E402

from scorehouse import runtime  # noqa: E402


def only_io_errors(task: Any, task_run: Any, state: Any) -> bool:  # noqa: ARG001 - Prefect's signature
    """A task's ``retry_condition_fn``: :func:`scorehouse.runtime.retries_on` of the error it raised."""
    try:
        state.result()
    except Exception as error:  # noqa: BLE001 - the task's own error, judged by the one rule
        return runtime.retries_on(error)
    return False


@cache
def task_of(fn: Callable) -> prefect.Task:
    """The Prefect task of the step ``fn`` (I/O steps retried on ``OSError`` only, as in process)."""
    io = runtime.step_info(fn).io
    return prefect.task(
        fn, name=fn.__name__, cache_policy=NO_CACHE,
        retries=runtime.IO_RETRIES if io else 0, retry_delay_seconds=runtime.IO_RETRY_DELAY_SECONDS if io else 0,
        retry_condition_fn=only_io_errors if io else None,
    )


@cache
def flow_of(fn: Callable, dask_address: str | None = None) -> prefect.Flow:
    """The Prefect flow of the flow ``fn``: its tasks in process, or on the Dask scheduler at ``dask_address``."""
    options: dict[str, Any] = {}
    if dask_address is not None:
        from prefect_dask import DaskTaskRunner

        options["task_runner"] = DaskTaskRunner(address=dask_address)
    return prefect.flow(fn, name=runtime.flow_info(fn).name, log_prints=False, validate_parameters=False, **options)


def run_flow(fn: Callable, args: tuple, kwargs: dict, session: runtime.Session) -> Any:
    """Run ``fn`` as a recorded flow run; on the session's Dask cluster when it has one."""
    address = session.cluster.scheduler.address if session.cluster is not None else None
    return flow_of(fn, address)(*args, **kwargs)


def in_flow_run() -> bool:
    return FlowRunContext.get() is not None


def run_task(fn: Callable, args: tuple, kwargs: dict) -> Any:
    return task_of(fn)(*args, **kwargs)


def map_tasks(fn: Callable, arguments: Sequence[tuple]) -> list:
    """Submit ``fn(*a)`` for every ``a`` to the flow run's task runner; the results in order."""
    futures = [task_of(fn).submit(*a) for a in arguments]
    return [future.result() for future in futures]


def log(level: str, message: str) -> None:
    getattr(prefect.get_run_logger(), level)(message)
