"""``scorehouse synth``: write synthetic instance-level dumps, or a synthetic arena, with a known truth.

The frames come from :mod:`transforms.synth` (pure), one task at a time
(memory: one task); :mod:`warehouse.dumps` writes them (layout and atomic
writes there).  ``spec.json`` holds the parameters, the plan and the true ranking.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.synth import SynthSpec, plan, scores_in, summary_of, task_frame
from scorehouse.transforms.synth_battles import synth_battles
from scorehouse.warehouse.dumps import BATTLE_DUMP_FORMATS, DUMP_FORMATS, check_formats, write_battles_dump, write_spec, write_task_dump


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


def write_synthetic_arena(
    n_battles: int, n_systems: int, seed: int, out: str | Path, formats: tuple[str, ...] = BATTLE_DUMP_FORMATS
) -> dict:
    """Write a synthetic arena (:func:`transforms.synth_battles.synth_battles`) under ``out``; return ``spec.json``.

    The battles carry the public arena dumps' columns, ``tstamp`` in unix seconds as
    the clean_battle dumps give it; ``spec.json`` holds the parameters, the systems'
    true log-strengths and popularity, and the true ranking (strongest first).
    """
    arena = synth_battles(n_battles, n_systems=n_systems, seed=seed)
    battles = arena.battles.with_columns(pl.col("tstamp").dt.epoch("us") / 1e6)
    paths = write_battles_dump(Path(out), battles, formats)
    truth = arena.strengths.sort("strength", descending=True)
    summary = {
        "spec": {"n_battles": n_battles, "n_systems": n_systems, "seed": seed},
        "files": [p.name for p in paths],
        "strengths": truth.to_dicts(),
        "true_ranking": truth.get_column("system").to_list(),
    }
    write_spec(Path(out), summary)
    return summary
