"""Only I/O failures are retried: a bug or bad data fails the same way every time (real Prefect tasks)."""

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.common import only_io_errors


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
