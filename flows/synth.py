"""``scorehouse synth``: write synthetic instance-level dumps with a known true ranking.

The frames come from :mod:`transforms.synth` (pure), one task at a time
(memory: one task); :mod:`warehouse.dumps` writes them (layout and atomic
writes there).  ``spec.json`` holds the parameters, the plan and the true ranking.
"""

from __future__ import annotations

from pathlib import Path

from transforms.synth import SynthSpec, plan, scores_in, summary_of, task_frame
from warehouse.dumps import DUMP_FORMATS, check_formats, write_spec, write_task_dump


def write_synthetic(spec: SynthSpec, out: str | Path, formats: tuple[str, ...] = DUMP_FORMATS) -> dict:
    """Write the dumps of ``spec`` under ``out`` in ``formats``; return what ``spec.json`` says."""
    check_formats(formats)
    tasks = plan(spec)
    n_scores = 0
    for task in tasks.iter_rows(named=True):  # one task in memory at a time
        frame = task_frame(spec, task)
        n_scores += scores_in(frame)
        write_task_dump(Path(out), task["benchmark"], task["task"], frame, formats)
    summary = summary_of(spec, tasks, n_scores)
    write_spec(Path(out), summary)
    return summary
