"""Progress of long work on stderr: a bar on a terminal, one line per finished step otherwise.

On a terminal, a rich bar (steps done of all, rate, time left) that clears
itself when done; when stderr is a file or a pipe, one line per finished step
(``ingest: 3/40 GLUE.csv``), which a log keeps and a bar would garble.
stdout is never touched, so piped results stay clean.  ``enabled=False``
(flows called from code, parallel runs whose steps finish out of order) is
silent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress(label: str, total: int, enabled: bool) -> Iterator[Callable[[str], None]]:
    """Yield ``done(step)``, to call once each of ``total`` steps has finished."""
    if not enabled:
        yield lambda step: None
        return
    if not sys.stderr.isatty():
        count = 0

        def line(step: str) -> None:
            nonlocal count
            count += 1
            print(f"{label}: {count}/{total} {step}", file=sys.stderr, flush=True)

        yield line
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        job = bar.add_task(label, total=total, rate="")

        def advance(step: str) -> None:
            bar.update(job, advance=1, description=f"{label}: {step}")
            task = bar.tasks[job]
            if task.elapsed:
                bar.update(job, rate=f"{task.completed / task.elapsed:.1f}/s")

        yield advance
