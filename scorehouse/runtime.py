"""How a command runs the flows: in its own process, or as flow runs recorded by a Prefect API.

The flows are plain functions marked with :func:`flow`; the steps they are made of are plain
functions marked with :func:`step`.  A flow calls its steps through :func:`call` and
:func:`map_steps`, and other flows through :func:`run`:

- **Without a Prefect API** (the default, see :func:`configured_api`) those calls are plain
  function calls in this process: nothing imports Prefect, no server or worker is started, and
  nothing is left running when the command ends.  I/O steps are retried here by the same rule
  Prefect applies (:data:`IO_RETRIES`, :func:`retries_on`).
- **With a Prefect API configured** (``PREFECT_API_URL``, a Prefect profile, ``prefect.toml``,
  ``.env``, Prefect Cloud) and history not switched off, :func:`session` loads
  :mod:`scorehouse.prefect_edge`, which runs the same functions as Prefect flows and tasks, so
  every command is a flow run in the API's history.
- ``--runner dask`` spreads :func:`map_steps` over a Dask cluster: through Prefect's Dask task
  runner when runs are recorded, through ``dask.distributed`` directly otherwise.  A local cluster
  started for the command is closed when the command ends.

One implementation, two ways in: the flows do not know which way they are run.
"""

from __future__ import annotations

import os
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from scorehouse.aggregators.errors import ScorehouseError, UsageError

P = ParamSpec("P")
R = TypeVar("R")

# Only I/O is retried: the same bytes parse the same way, and a bug fails the same way twice.
IO_RETRIES = 2
IO_RETRY_DELAY_SECONDS = 1.0

HISTORY_ENV = "SCOREHOUSE_HISTORY"  # "off": no run history even when a Prefect API is configured
RUNNERS = ("local", "dask")
HEALTH_TIMEOUT_SECONDS = 5.0


class ApiUnreachableError(ScorehouseError):
    """A Prefect API is configured but does not answer: the command stops before writing anything."""

    exit_code = 1
    retryable = True


@dataclass(frozen=True)
class StepInfo:
    """What :func:`step` records of a step: whether it is I/O (retried on ``OSError``)."""

    io: bool


@dataclass(frozen=True)
class FlowInfo:
    """What :func:`flow` records of a flow: its name in the run history."""

    name: str


def step(fn: Callable[P, R] | None = None, *, io: bool = False) -> Any:
    """Mark ``fn`` as a step of a flow (``io=True``: it reads or writes, and is retried on I/O errors).

    ``fn`` itself is returned: calling it directly runs it, once; :func:`call` runs it as a step.
    """
    def mark(function: Callable[P, R]) -> Callable[P, R]:
        function.__scorehouse_step__ = StepInfo(io=io)  # type: ignore[attr-defined]
        return function

    return mark if fn is None else mark(fn)


def flow(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Mark a function as the flow ``name``; :func:`run` runs it (recorded when a session records)."""
    def mark(function: Callable[P, R]) -> Callable[P, R]:
        function.__scorehouse_flow__ = FlowInfo(name)  # type: ignore[attr-defined]
        return function

    return mark


def step_info(fn: Callable) -> StepInfo:
    info = getattr(fn, "__scorehouse_step__", None)
    if info is None:
        raise TypeError(f"{fn.__qualname__} is not marked as a step (scorehouse.runtime.step)")
    return info


def flow_info(fn: Callable) -> FlowInfo:
    info = getattr(fn, "__scorehouse_flow__", None)
    if info is None:
        raise TypeError(f"{fn.__qualname__} is not marked as a flow (scorehouse.runtime.flow)")
    return info


def retries_on(error: BaseException) -> bool:
    """Whether a failed I/O step is tried again: what a named error says (``ScorehouseError.retryable``), and
    for any other error whether it is an ``OSError`` (never a bug or bad data)."""
    if isinstance(error, ScorehouseError):
        return error.retryable
    return isinstance(error, OSError)


@dataclass(frozen=True)
class Session:
    """How this command runs its flows: ``recorder`` the Prefect edge (None: in process), ``cluster`` Dask."""

    recorder: Any = None  # the module scorehouse.prefect_edge when runs are recorded
    cluster: Any = None  # a dask.distributed Client when --runner dask


_SESSION: ContextVar[Session] = ContextVar("scorehouse_session", default=Session())


def current() -> Session:
    return _SESSION.get()


def in_recorded_run() -> Any:
    """The Prefect edge when this code runs inside a recorded flow run, else None.

    The session's recorder, or the edge already loaded in this process: a served deployment's
    run is started by Prefect in a process of its own, where no session was opened.
    """
    recorder = current().recorder or sys.modules.get("scorehouse.prefect_edge")
    return recorder if recorder is not None and recorder.in_flow_run() else None


def run(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run the flow ``fn``: a recorded flow run (a subflow inside another) when the session records."""
    flow_info(fn)
    session = current()
    recorder = session.recorder or in_recorded_run()
    if recorder is None:
        return fn(*args, **kwargs)
    return recorder.run_flow(fn, args, kwargs, session)


def call(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run the step ``fn``: a task run of the current flow run when recorded, else in process with retries."""
    recorder = in_recorded_run()
    if recorder is not None:
        return recorder.run_task(fn, args, kwargs)
    return call_plain(fn, *args, **kwargs)


def call_plain(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)``; an I/O step is tried again after an ``OSError``, up to :data:`IO_RETRIES` times."""
    tries = 1 + (IO_RETRIES if step_info(fn).io else 0)
    for attempt in range(1, tries + 1):
        try:
            return fn(*args, **kwargs)
        except Exception as error:
            if attempt == tries or not retries_on(error):
                raise
            time.sleep(IO_RETRY_DELAY_SECONDS)
    raise AssertionError("unreachable")


def map_steps(fn: Callable[..., R], arguments: Sequence[tuple], parallel: bool) -> list[R]:
    """``fn(*a)`` for every ``a``, in order: on the session's cluster when ``parallel``, else one by one."""
    session = current()
    if not parallel or session.cluster is None:
        return [call(fn, *a) for a in arguments]
    recorder = in_recorded_run()
    if recorder is not None:
        return recorder.map_tasks(fn, arguments)
    futures = [session.cluster.submit(call_plain, fn, *a, pure=False) for a in arguments]
    return session.cluster.gather(futures)


def log_warning(message: str) -> None:
    """A warning in the flow run's log when runs are recorded (in process, the command prints its outcome)."""
    recorder = in_recorded_run()
    if recorder is not None:
        recorder.log("warning", message)


def log_error(message: str) -> None:
    """An error in the flow run's log when runs are recorded (the run itself still completes)."""
    recorder = in_recorded_run()
    if recorder is not None:
        recorder.log("error", message)


# --- Is a Prefect API configured?  Read as Prefect reads it, without importing Prefect. ---


def configured_api(cwd: Path | None = None) -> str | None:
    """The Prefect API URL the settings name, or None; Prefect's sources in its order of precedence.

    The environment (``PREFECT_API_URL``), then ``.env``, ``prefect.toml`` and ``pyproject.toml``
    (``[tool.prefect]``) in the working folder, then the active profile of the profiles file
    (``PREFECT_PROFILES_PATH``, else ``$PREFECT_HOME/profiles.toml``, else ``~/.prefect/profiles.toml``;
    the profile ``PREFECT_PROFILE`` names, else the file's ``active``).  Importing Prefect to ask
    it costs 1.6-2 s, more than most commands' whole work.
    """
    folder = cwd or Path.cwd()
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    dotenv = read_dotenv(folder / ".env")
    if dotenv.get("PREFECT_API_URL"):
        return dotenv["PREFECT_API_URL"]
    for path, table in ((folder / "prefect.toml", ()), (folder / "pyproject.toml", ("tool", "prefect"))):
        url = toml_value(path, (*table, "api", "url"))
        if url:
            return str(url)
    profiles_path = os.environ.get("PREFECT_PROFILES_PATH") or dotenv.get("PREFECT_PROFILES_PATH")
    prefect_home = Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser()
    profiles = read_toml(Path(profiles_path) if profiles_path else prefect_home / "profiles.toml")
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active")
    url = profiles.get("profiles", {}).get(active, {}).get("PREFECT_API_URL") if active else None
    return str(url) if url else None


def read_dotenv(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (``export`` and quotes allowed); empty when there is none."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return {}
    values = {}
    for line in lines:
        key, sep, value = line.strip().removeprefix("export ").partition("=")
        if sep and not key.startswith("#"):
            values[key.strip()] = value.strip().strip("'\"")
    return values


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except (FileNotFoundError, NotADirectoryError, tomllib.TOMLDecodeError):
        return {}


def toml_value(path: Path, keys: tuple[str, ...]) -> Any:
    value: Any = read_toml(path)
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def history_wanted(no_history: bool) -> bool:
    """Whether runs are recorded when an API is configured: not with ``--no-history`` or ``SCOREHOUSE_HISTORY=off``."""
    return not no_history and os.environ.get(HISTORY_ENV, "").strip().lower() not in ("off", "0", "false", "no")


def check_reachable(url: str) -> None:
    """Raise :class:`ApiUnreachableError` unless the API at ``url`` answers its health check."""
    health = url.rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(health, timeout=HEALTH_TIMEOUT_SECONDS) as response:  # noqa: S310 - a configured URL
            response.read()
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise ApiUnreachableError(
            f"the Prefect API at {url} does not answer ({reason}); start it, fix PREFECT_API_URL, "
            f"or run without a run history: --no-history (or {HISTORY_ENV}=off)"
        ) from None


# --- Runners ---


@dataclass(frozen=True)
class RunnerSpec:
    """``--runner``, ``--workers`` and ``--address`` as given."""

    name: str = "local"
    workers: int | None = None
    address: str | None = None


def check_runner(spec: RunnerSpec, recorded: bool) -> None:
    """A runner that cannot be built is a usage error, said before anything starts."""
    if spec.name not in RUNNERS:
        raise UsageError(f"unknown runner {spec.name!r}; choose one of {', '.join(RUNNERS)}")
    if spec.name == "local":
        if spec.workers is not None or spec.address is not None:
            raise UsageError("--workers and --address apply to --runner dask only")
        return
    if spec.workers is not None and spec.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {spec.workers}")
    if spec.workers is not None and spec.address is not None:
        raise UsageError("give --workers (a local cluster) or --address (an existing one), not both")
    from importlib.util import find_spec

    needed = ("distributed", "prefect_dask") if recorded else ("distributed",)
    missing = [name for name in needed if find_spec(name) is None]
    if missing:
        raise UsageError(f"--runner dask needs {', '.join(missing)}: install the extra, pip install 'scorehouse[dask]'")


@contextmanager
def dask_cluster(spec: RunnerSpec) -> Iterator[Any]:
    """A ``dask.distributed`` client: of the cluster at ``--address``, or of a local cluster closed on exit.

    Local workers are separate processes started fresh (Dask's spawn), never forks of this one.
    """
    import dask
    from distributed import Client, LocalCluster

    if spec.address:
        with Client(spec.address) as client:
            yield client
        return
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}), \
            LocalCluster(n_workers=spec.workers or 2, threads_per_worker=1, processes=True,
                         dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


@contextmanager
def session(no_history: bool = False, runner: RunnerSpec = RunnerSpec()) -> Iterator[Session]:
    """The way this command runs its flows, for the duration of the ``with`` block.

    Records runs when a Prefect API is configured (checked to answer first) and history is
    wanted; otherwise runs them in process without importing Prefect.  ``runner`` dask starts or
    joins a cluster for :func:`map_steps`.
    """
    url = configured_api() if history_wanted(no_history) else None
    check_runner(runner, recorded=url is not None)
    if url is not None:
        check_reachable(url)
    recorder = None
    if url is not None:
        from scorehouse import prefect_edge as recorder
    token = None
    try:
        if runner.name == "dask":
            with dask_cluster(runner) as client:
                token = _SESSION.set(Session(recorder, client))
                yield current()
        else:
            token = _SESSION.set(Session(recorder, None))
            yield current()
    finally:
        if token is not None:
            _SESSION.reset(token)
