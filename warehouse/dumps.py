"""Score dumps written for ingestion (``scorehouse synth``): one file per task, written atomically.

Layout under the output folder (one file per task, so ingest and rank can go
task by task)::

    csv/benchmark=<B>/<task>.csv          instance-level long CSV (System, Utterance, metrics...)
    parquet/benchmark=<B>/<task>.parquet  the same table as Parquet
    spec.json                             what generated them (see flows.synth)

A synthetic arena (``scorehouse synth --battles N``) is one table of battles::

    battles.jsonl, battles.parquet        one battle per row/line, the public arena dumps' columns
    spec.json                             what generated them and the systems' true strengths

The parser names the benchmark after the ``benchmark=`` folder and the task
after the file.  Each file is written aside and renamed, so an interrupted
run leaves whole files.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse import atomic

DUMP_FORMATS = ("csv", "parquet")
BATTLE_DUMP_FORMATS = ("jsonl", "parquet")
SPEC_FILE = "spec.json"


class DumpFormatError(ScorehouseError, ValueError):
    """A dump format that cannot be written; choose from :data:`DUMP_FORMATS`."""


def check_formats(formats: tuple[str, ...]) -> None:
    """Raise :class:`DumpFormatError` naming any format not in :data:`DUMP_FORMATS`."""
    unknown = sorted(set(formats) - set(DUMP_FORMATS))
    if unknown:
        raise DumpFormatError(f"synth: unknown format(s) {unknown}; choose from {DUMP_FORMATS}")


def write_task_dump(out: Path, benchmark: str, task: str, frame: pl.DataFrame, formats: tuple[str, ...]) -> None:
    """Write one task's dump under ``out`` in each of ``formats``."""
    check_formats(formats)
    folder = f"benchmark={benchmark}"
    if "csv" in formats:
        with atomic.written_aside(Path(out) / "csv" / folder / f"{task}.csv") as aside:
            frame.write_csv(aside)
    if "parquet" in formats:
        atomic.write_parquet(frame, Path(out) / "parquet" / folder / f"{task}.parquet")


def write_battles_dump(out: Path, battles: pl.DataFrame, formats: tuple[str, ...]) -> list[Path]:
    """Write a table of battles as ``out/battles.<format>`` for each of ``formats``; return the paths."""
    unknown = sorted(set(formats) - set(BATTLE_DUMP_FORMATS))
    if unknown:
        raise DumpFormatError(f"synth: unknown battle format(s) {unknown}; choose from {BATTLE_DUMP_FORMATS}")
    paths = []
    if "jsonl" in formats:
        with atomic.written_aside(Path(out) / "battles.jsonl") as aside:
            battles.write_ndjson(aside)
        paths.append(Path(out) / "battles.jsonl")
    if "parquet" in formats:
        paths.append(atomic.write_parquet(battles, Path(out) / "battles.parquet"))
    return paths


def write_spec(out: Path, spec: dict) -> Path:
    """Write what generated the dumps as ``out/spec.json``; return its path."""
    return atomic.write_json(spec, Path(out) / SPEC_FILE)
