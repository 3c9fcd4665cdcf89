"""Only I/O failures are retried: a bug or bad data fails the same way every time (real Prefect tasks)."""

import importlib
import pkgutil

from prefect import Task, flow, task
from prefect.cache_policies import NO_CACHE

from scorehouse.flows.common import io_task, only_io_errors


def test_io_errors_are_retried_and_other_errors_are_not():
    calls = {"io": 0, "bug": 0}

    @task(retries=2, retry_delay_seconds=0, retry_condition_fn=only_io_errors, cache_policy=NO_CACHE)
    def flaky_disk() -> str:
        calls["io"] += 1
        if calls["io"] < 3:
            raise OSError("disk full")
        return "written"

    @task(retries=2, retry_delay_seconds=0, retry_condition_fn=only_io_errors, cache_policy=NO_CACHE)
    def bug() -> None:
        calls["bug"] += 1
        raise ValueError("a bug")

    @flow
    def both() -> tuple[str, str]:
        written = flaky_disk()
        try:
            bug()
        except ValueError as error:
            return written, str(error)
        return written, "no error"

    assert both() == ("written", "a bug")
    assert calls == {"io": 3, "bug": 1}


def flows_tasks() -> dict[str, Task]:
    """Every Prefect task object defined in a module of the ``flows`` package, by qualified name."""
    from scorehouse import flows

    found = {}
    for module_info in pkgutil.walk_packages(flows.__path__, "scorehouse.flows."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, Task) and value.fn.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_task_of_the_flows_that_retries_retries_on_io_errors_only():
    tasks = flows_tasks()
    # the walk sees the I/O tasks and the pure ones (a walk that found nothing would prove nothing)
    assert {"scorehouse.flows.common.refresh_catalog", "scorehouse.flows.ingest.ingest_batch", "scorehouse.flows.rank.read_benchmark",
            "scorehouse.flows.rank.store_snapshot", "scorehouse.flows.refresh.move_file", "scorehouse.flows.analyze.store_analysis",
            "scorehouse.flows.run.export_latest_report", "scorehouse.flows.rank.rank_ballots"} <= set(tasks)
    retrying = {name for name, t in tasks.items() if t.retries}
    assert retrying, "no task retries at all"
    wrong = sorted(name for name in retrying if tasks[name].retry_condition_fn is not only_io_errors)
    assert not wrong, f"tasks that retry on any error, not only on I/O: {wrong}; decorate them with flows.common.io_task"
    assert "scorehouse.flows.rank.rank_ballots" not in retrying  # pure work never retries


def test_io_task_builds_tasks_that_retry_on_io_errors_only():
    calls = {"io": 0, "bug": 0}

    @io_task
    def flaky_disk() -> str:
        calls["io"] += 1
        if calls["io"] < 3:
            raise OSError("disk full")
        return "written"

    @io_task
    def bad_data() -> None:
        calls["bug"] += 1
        raise ValueError("bad data")

    @flow
    def both() -> tuple[str, str]:
        written = flaky_disk.with_options(retry_delay_seconds=0)()
        try:
            bad_data.with_options(retry_delay_seconds=0)()
        except ValueError as error:
            return written, str(error)
        return written, "no error"

    assert both() == ("written", "bad data")
    assert calls == {"io": 3, "bug": 1}
