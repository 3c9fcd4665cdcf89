"""The runtime's rules: where a Prefect API is configured, how steps retry, which runners can run."""

from __future__ import annotations

import pytest

from scorehouse import runtime
from scorehouse.aggregators.errors import UsageError


@pytest.fixture
def no_prefect_settings(monkeypatch, tmp_path):
    """An environment and folder where nothing names a Prefect API."""
    for name in ("PREFECT_API_URL", "PREFECT_PROFILE", "PREFECT_PROFILES_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_no_source_names_an_api(no_prefect_settings):
    assert runtime.configured_api() is None


@pytest.mark.parametrize(("file", "text"), [
    (".env", 'PREFECT_API_URL="http://127.0.0.1:4300/api"\n'),
    (".env", "# a comment\nexport PREFECT_API_URL=http://127.0.0.1:4300/api\n"),
    ("prefect.toml", '[api]\nurl = "http://127.0.0.1:4300/api"\n'),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.prefect.api]\nurl = "http://127.0.0.1:4300/api"\n'),
])
def test_each_file_of_the_working_folder_names_the_api(no_prefect_settings, file, text):
    (no_prefect_settings / file).write_text(text)
    assert runtime.configured_api() == "http://127.0.0.1:4300/api"


def test_the_environment_wins_over_the_files(no_prefect_settings, monkeypatch):
    (no_prefect_settings / "prefect.toml").write_text('[api]\nurl = "http://127.0.0.1:4300/api"\n')
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4400/api")
    assert runtime.configured_api() == "http://127.0.0.1:4400/api"


PROFILES = """active = "local"

[profiles.ephemeral]
PREFECT_SERVER_EPHEMERAL_ENABLED = "true"

[profiles.local]
PREFECT_API_URL = "http://127.0.0.1:4200/api"

[profiles.cloud]
PREFECT_API_URL = "https://api.prefect.cloud/api/accounts/a/workspaces/w"
"""


def test_the_active_profile_names_the_api(no_prefect_settings, monkeypatch):
    home = no_prefect_settings / "prefect-home"
    home.mkdir()
    (home / "profiles.toml").write_text(PROFILES)
    assert runtime.configured_api() == "http://127.0.0.1:4200/api"
    monkeypatch.setenv("PREFECT_PROFILE", "cloud")  # Prefect Cloud: `prefect cloud login` writes such a profile
    assert runtime.configured_api().startswith("https://api.prefect.cloud/")
    monkeypatch.setenv("PREFECT_PROFILE", "ephemeral")
    assert runtime.configured_api() is None


def test_a_profiles_file_named_by_the_environment(no_prefect_settings, monkeypatch):
    (no_prefect_settings / "elsewhere.toml").write_text(PROFILES)
    monkeypatch.setenv("PREFECT_PROFILES_PATH", str(no_prefect_settings / "elsewhere.toml"))
    assert runtime.configured_api() == "http://127.0.0.1:4200/api"


def test_history_is_off_by_option_or_environment(monkeypatch):
    monkeypatch.delenv(runtime.HISTORY_ENV, raising=False)
    assert runtime.history_wanted(no_history=False)
    assert not runtime.history_wanted(no_history=True)
    monkeypatch.setenv(runtime.HISTORY_ENV, "off")
    assert not runtime.history_wanted(no_history=False)


def test_an_unreachable_api_is_a_named_error_that_names_its_url():
    with pytest.raises(runtime.ApiUnreachableError, match=r"the Prefect API at http://127\.0\.0\.1:9/api does not answer"):
        runtime.check_reachable("http://127.0.0.1:9/api")  # port 9 (discard): nothing listens


CALLS: list[str] = []


@runtime.step(io=True)
def flaky_io(failures: int, error: type[Exception]) -> str:
    CALLS.append("io")
    if CALLS.count("io") <= failures:
        raise error("failed")
    return "written"


@runtime.step
def flaky_compute(failures: int) -> str:
    CALLS.append("compute")
    if CALLS.count("compute") <= failures:
        raise OSError("failed")
    return "computed"


def test_in_process_an_io_step_is_retried_on_io_errors_only(monkeypatch):
    monkeypatch.setattr(runtime, "IO_RETRY_DELAY_SECONDS", 0.0)
    CALLS.clear()
    assert runtime.call(flaky_io, runtime.IO_RETRIES, OSError) == "written"  # fails twice, then succeeds
    assert CALLS.count("io") == runtime.IO_RETRIES + 1
    CALLS.clear()
    with pytest.raises(OSError):
        runtime.call(flaky_io, runtime.IO_RETRIES + 1, OSError)  # one failure too many
    assert CALLS.count("io") == runtime.IO_RETRIES + 1
    CALLS.clear()
    with pytest.raises(ValueError):
        runtime.call(flaky_io, 1, ValueError)  # bad data: not retried
    assert CALLS == ["io"]
    CALLS.clear()
    with pytest.raises(OSError):
        runtime.call(flaky_compute, 1)  # not an I/O step: never retried
    assert CALLS == ["compute"]


def test_the_retry_rule_reads_what_a_named_error_says_and_retries_other_errors_only_on_io():
    from scorehouse.flows.ingest_read import FileChangedError
    from scorehouse.warehouse.catalog import WarehouseMissingError

    assert runtime.retries_on(runtime.ApiUnreachableError("no answer"))  # retryable, and no OSError
    assert runtime.retries_on(FileChangedError("changed while read"))
    assert not runtime.retries_on(WarehouseMissingError("no home"))  # an OSError that says a retry cannot help
    assert not runtime.retries_on(UsageError("bad option"))
    assert runtime.retries_on(TimeoutError("slow disk")) and not runtime.retries_on(KeyError("bug"))


def test_an_unmarked_function_is_not_a_step():
    with pytest.raises(TypeError, match="not marked as a step"):
        runtime.call(len, "abc")


@pytest.mark.parametrize(("spec", "message"), [
    (runtime.RunnerSpec("spark"), "unknown runner 'spark'"),
    (runtime.RunnerSpec("local", workers=2), "--runner dask only"),
    (runtime.RunnerSpec("dask", workers=0), "--workers must be >= 1, got 0"),
    (runtime.RunnerSpec("dask", workers=2, address="tcp://127.0.0.1:8786"), "not both"),
])
def test_runner_options_that_cannot_work_are_usage_errors(spec, message):
    with pytest.raises(UsageError, match=message) as raised:
        runtime.check_runner(spec, recorded=False)
    assert raised.value.exit_code == 2


def test_every_flow_step_is_marked_and_io_steps_are_the_ones_that_write_or_read():
    """Each step of the flows package says whether it is I/O: the retry rule follows from the mark."""
    import importlib
    import pkgutil

    from scorehouse import flows

    steps = {}
    for info in pkgutil.walk_packages(flows.__path__, "scorehouse.flows."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if callable(value) and hasattr(value, "__scorehouse_step__") and value.__module__ == module.__name__:
                steps[f"{info.name.rsplit('.', 1)[1]}.{name}"] = runtime.step_info(value).io
    assert {name for name, io in steps.items() if not io} == {
        "analyze.usable_methods", "analyze.run_experiment", "rank.rank_ballots", "rank.partition_partial",
        "rank.rank_battle_run",
    }  # pure computations: a failure there is a bug or bad data, never worth a retry
    assert {"ingest.ingest_batch", "rank.store_snapshot", "common.refresh_catalog", "refresh.move_file"} <= {
        name for name, io in steps.items() if io}
