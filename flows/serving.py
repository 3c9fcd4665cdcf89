"""Serving a flow on a schedule until SIGTERM (or Ctrl-C) stops it, whatever it is doing then.

Prefect's runner answers SIGTERM by raising ``SystemExit`` wherever the main
thread happens to be.  When that is inside the pydantic serialiser that
packs a starting flow run's context, the exception becomes a
``PydanticSerializationError``, the runner logs it and keeps serving: the
process ignored the signal and held the home's Prefect server in use
(reproduced with ``--interval 2``).  Here SIGTERM instead cancels the task
that runs the runner, from the event loop, so it always ends the serve and
the command returns (releasing the server's ``users.lock``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from prefect import Flow
from prefect.runner import Runner


class StoppableRunner(Runner):
    """A Prefect runner that SIGTERM stops by cancelling its serving task (see the module docstring)."""

    _serving: asyncio.Task | None = None

    async def serve_until_stopped(self) -> None:
        self._serving = asyncio.current_task()
        try:
            await self.start()
        except asyncio.CancelledError:
            pass

    def handle_sigterm(self, *args: Any) -> None:  # noqa: ARG002 - a signal handler's (signum, frame)
        """Runs in the main thread between two bytecodes: only schedule the cancellation on the loop."""
        if self._serving is not None:
            self._serving.get_loop().call_soon_threadsafe(self._serving.cancel)


def serve_until_stopped(flow: Flow, name: str, cron: str | None, interval: int | None,
                        parameters: dict[str, Any]) -> None:
    """Serve ``flow`` as deployment ``name`` on ``cron`` or every ``interval`` seconds; return on SIGTERM or Ctrl-C."""
    runner = StoppableRunner(name=name)
    runner.add_flow(flow, name=name, cron=cron, interval=interval, parameters=parameters)
    print(f"serving flow {flow.name!r} as deployment {name!r}; stop with Ctrl-C or SIGTERM", flush=True)
    try:
        asyncio.run(runner.serve_until_stopped())
    except KeyboardInterrupt:
        pass
