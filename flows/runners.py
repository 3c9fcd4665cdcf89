"""Where the per-partition tasks run: in this process, or on a Dask cluster through Prefect.

``--runner dask`` uses Prefect's Dask task runner (the optional extra
``scorehouse[dask]``, i.e. prefect-dask): with ``--workers N`` a local cluster
of N worker processes, with ``--address tcp://host:8786`` an existing cluster.
Every partition task is idempotent (it reads, or writes its own path
atomically), so Dask's retries and duplicated tasks are harmless.

Prefect tasks on the workers report to a Prefect API.  Without a configured
server (``PREFECT_API_URL``) Prefect starts a temporary one per process, and on
a local cluster each worker would start its own; so a local cluster is given
one temporary server, started here, that the flow and the workers share.  A
remote cluster needs ``PREFECT_API_URL`` set to a server its workers reach
(and the warehouse home on storage they all see): see ``docs/scale.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

RUNNERS = ("local", "dask")


class RunnerError(ValueError):
    """The task runner asked for cannot be built (unknown name, missing extra, bad worker count)."""


def shared_api_url() -> str:
    """The Prefect API the workers should report to: the configured one, else a temporary server started now."""
    from prefect.settings import get_current_settings

    configured = get_current_settings().api.url
    if configured:
        return str(configured)
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()
    server.start()
    os.environ["PREFECT_API_URL"] = server.api_url  # the flow's own client and the workers' share it
    return server.api_url


def dask_runner(workers: int | None, address: str | None):  # noqa: ANN201 - prefect_dask is optional
    """A Prefect ``DaskTaskRunner`` on ``address``, or on a local cluster of ``workers`` processes."""
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:
        raise RunnerError(
            "--runner dask needs prefect-dask: install the optional extra, pip install 'scorehouse[dask]'"
        ) from None
    if address:
        return DaskTaskRunner(address=address)
    if workers is not None and workers < 1:
        raise RunnerError(f"--workers must be >= 1, got {workers}")
    url = shared_api_url()
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": workers or 2,
            "processes": True,
            "threads_per_worker": 1,
            "dashboard_address": None,
            "env": {"PREFECT_API_URL": url},
        }
    )


def runner_options(runner: str, workers: int | None = None, address: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``flow.with_options`` (empty for the in-process runner)."""
    if runner not in RUNNERS:
        raise RunnerError(f"unknown runner {runner!r}; choose one of {RUNNERS}")
    if runner == "local":
        if workers is not None or address is not None:
            raise RunnerError("--workers and --address apply to --runner dask only")
        return {}
    return {"task_runner": dask_runner(workers, address)}


def map_tasks(task: Callable, arguments: Sequence[tuple], parallel: bool) -> list:
    """``task(*a)`` for every ``a``: submitted to the flow's task runner when ``parallel``, else one by one."""
    if not parallel:
        return [task(*a) for a in arguments]
    futures = [task.submit(*a) for a in arguments]
    return [f.result() for f in futures]
