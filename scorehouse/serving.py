"""``scorehouse serve``: the refresh flow as a Prefect deployment, run on Prefect's scheduler.

Schedules need a Prefect API: the configured one (:func:`scorehouse.runtime.configured_api`),
else a private local server that ``serve`` starts and stops (:mod:`scorehouse.local_server`).
The deployment's runs execute the plain refresh flow in processes of their own, where
:mod:`scorehouse.prefect_edge` records its steps as task runs.

SIGTERM, SIGINT and Ctrl-C stop the serve whatever it is doing: Prefect's runner answers SIGTERM
by raising ``SystemExit`` wherever the main thread is, and inside the pydantic serialiser that
packs a starting run's context that exception was logged and ignored (reproduced with
``--interval 2``).  Here both signals cancel the task that runs the runner, from the event loop.
A ``serve`` started in the background by a shell inherits SIGINT ignored: it is installed anyway.
"""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from scorehouse import runtime
from scorehouse.flows.refresh import refresh_flow
from scorehouse.warehouse.storage import Warehouse

DEPLOYMENT_NAME = "scorehouse-refresh"
ENTRYPOINT = f"{__name__}.served_refresh"  # what a run's process imports: the Prefect flow below


def serve(inbox: str, home: str | None, cron: str | None, interval: int | None, site: str | None = None) -> None:
    """Serve the refresh of ``inbox`` into ``home`` every ``interval`` seconds or on ``cron`` until stopped;
    with ``site``, each run that changed a ranking rebuilds the leaderboard site there."""
    parameters = {"inbox": str(Path(inbox).resolve()), "home": str(Warehouse(home).home)}
    if site is not None:
        parameters["site"] = str(Path(site).resolve())
    for stopping in (signal.SIGTERM, signal.SIGINT):  # until the runner takes over: stop, and stop the server
        signal.signal(stopping, interrupt)
    try:
        serve_with_api(parameters, home, cron, interval)
    except KeyboardInterrupt:
        pass


def interrupt(signum: int, frame: Any) -> None:  # noqa: ARG001 - a signal handler's (signum, frame)
    """Stop the serve: once (a second signal during the stop must not interrupt its cleanup)."""
    for stopping in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stopping, signal.SIG_IGN)
    raise KeyboardInterrupt


def serve_with_api(parameters: dict[str, str], home: str | None, cron: str | None, interval: int | None) -> None:
    """Serve on the configured API, or on a private server started for the time of the serve."""
    with ExitStack() as stack:
        url = runtime.configured_api()
        if url is not None:
            runtime.check_reachable(url)
            where = f"the Prefect API at {url}"
        else:
            from scorehouse.local_server import private_server

            server = stack.enter_context(private_server(Warehouse(home).home))
            os.environ["PREFECT_API_URL"] = server.url  # before Prefect is imported: its settings read them
            os.environ["PREFECT_API_AUTH_STRING"] = server.secret
            where = f"a private Prefect server at {server.url} (UI at {server.url.removesuffix('/api')})"
        print(f"serving the refresh of {parameters['inbox']} as deployment {DEPLOYMENT_NAME!r} on {where}; "
              "stop with Ctrl-C or SIGTERM", flush=True)
        run_runner(parameters, cron, interval)


def run_runner(parameters: dict[str, Any], cron: str | None, interval: int | None) -> None:
    from prefect.runner import Runner
    from prefect.types.entrypoint import EntrypointType

    class StoppableRunner(Runner):
        """A runner that SIGTERM and SIGINT stop by cancelling its serving task (see the module docstring)."""

        serving: asyncio.Task | None = None

        def handle_sigterm(self, *args: Any) -> None:  # noqa: ARG002 - a signal handler's (signum, frame)
            if self.serving is not None:
                self.serving.get_loop().call_soon_threadsafe(self.serving.cancel)

    from scorehouse import prefect_edge

    runner = StoppableRunner(name=DEPLOYMENT_NAME)
    deployment = prefect_edge.flow_of(refresh_flow).to_deployment(
        name=DEPLOYMENT_NAME, cron=cron, interval=interval, parameters=parameters,
        entrypoint_type=EntrypointType.MODULE_PATH,
    )
    deployment.entrypoint = ENTRYPOINT
    runner.add_deployment(deployment)

    async def serve_until_stopped() -> None:
        runner.serving = asyncio.current_task()
        signal.signal(signal.SIGINT, runner.handle_sigterm)
        try:
            await runner.start()
        except asyncio.CancelledError:
            pass

    asyncio.run(serve_until_stopped())


def __getattr__(name: str) -> Any:
    """``served_refresh``: the refresh flow as a Prefect flow, built on first use (it imports Prefect)."""
    if name != "served_refresh":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from scorehouse import prefect_edge

    return prefect_edge.flow_of(refresh_flow)
