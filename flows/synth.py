"""``scorehouse synth``: write synthetic instance-level dumps with a known true ranking.

Layout under the output folder (one file per task, so ingest and rank can go
task by task)::

    csv/benchmark=<B>/<task>.csv          instance-level long CSV (System, Utterance, metrics...)
    parquet/benchmark=<B>/<task>.parquet  the same table as Parquet
    spec.json                             the parameters, the plan and the true ranking

The parser names the benchmark after the ``benchmark=`` folder and the task
after the file.  Tasks are generated one at a time (memory: one task) and each
file is written aside and renamed, so an interrupted run leaves whole files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl

from aggregators.synthetic import true_ranking
from transforms.synth import SynthSpec, plan, task_frame

FORMATS = ("csv", "parquet")


def _atomic(target: Path, write) -> None:  # noqa: ANN001 - a one-argument writer
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    write(aside)
    os.replace(aside, target)


def write_synthetic(spec: SynthSpec, out: str | Path, formats: tuple[str, ...] = FORMATS) -> dict:
    """Write the dumps of ``spec`` under ``out`` in ``formats``; return what ``spec.json`` says."""
    out = Path(out)
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise ValueError(f"synth: unknown format(s) {unknown}; choose from {FORMATS}")
    tasks = plan(spec)
    n_scores = 0
    for task in tasks.iter_rows(named=True):
        frame = task_frame(spec, task)
        n_scores += frame.height * (frame.width - 2)
        folder = f"benchmark={task['benchmark']}"
        if "csv" in formats:
            _atomic(out / "csv" / folder / f"{task['task']}.csv", frame.write_csv)
        if "parquet" in formats:
            _atomic(out / "parquet" / folder / f"{task['task']}.parquet", frame.write_parquet)
    summary = {
        "spec": spec.as_dict(),
        "n_scores": n_scores,
        "true_ranking": true_ranking(spec.systems),
        "tasks": tasks.with_columns(pl.col("systems").list.len().alias("n_systems")).drop("systems", "b", "t").to_dicts(),
    }
    _atomic(out / "spec.json", lambda p: Path(p).write_text(json.dumps(summary, indent=1)))
    return summary
