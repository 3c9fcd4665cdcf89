"""The real MTEB results repository (issue 27): ingest, re-ingest and rank against a plain floor, in one run.

Run: ``.venv/bin/python -m benchmarks.bench_mteb PATH [--every K] [--json docs/bench-mteb.json]``, where PATH is a
local copy of github.com/embeddings-benchmark/results as a user clones it (its ``results/<model>/`` folders;
a copy that lacks a few large files is fine: what is there is measured).  ``--every K`` takes every K-th
model folder (sorted) for a quicker partial run.  Measured, each as its own process, with wall time, CPU
time (user + system of the process tree) and peak RSS summed over the process tree (sampled every 0.2 s):

- the floor: a plain script that ``json.load``s every result file and flattens its numbers into one Polars frame;
- ``scorehouse ingest`` of the model folders into a fresh home, then again with nothing new;
- ``scorehouse rank --benchmark mteb`` with the default methods.

The load average before and after is recorded; the table goes to ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import polars as pl

from benchmarks.bench_many_files import measured, measured_process

REPO = Path(__file__).resolve().parent.parent
# The targets on 2 cores: ingest within 1.5x the floor's CPU and 300 s, re-ingest 20 s, rank 60 s, 2 GB each.
TARGETS = {"ingest_cpu_vs_floor": 1.5, "ingest_seconds": 300.0, "rerun_seconds": 20.0, "rank_seconds": 60.0,
           "peak_mb": 2048.0}


def leaves(value: object, name: str, names: list[str], numbers: list[float]) -> None:
    """The floor's flattening: every number of ``value`` under its dotted name."""
    if isinstance(value, dict):
        for key, inner in value.items():
            leaves(inner, f"{name}.{key}", names, numbers)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            leaves(inner, f"{name}[{i}]", names, numbers)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        names.append(name)
        numbers.append(float(value))


def floor(folders: list[Path], out: Path) -> None:
    """``json.load`` every result file under ``folders`` and flatten the numbers into one frame (run as a process);
    the numbers of files and of numbers go to ``out``."""
    files, names, numbers, counts = [], [], [], []
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            if path.name == "model_meta.json":
                continue
            try:
                doc = json.loads(path.read_bytes())
            except ValueError:
                continue
            before = len(names)
            leaves(doc, "", names, numbers)
            files.append(str(path))
            counts.append(len(names) - before)
    frame = pl.DataFrame({"file": pl.Series(files).repeat_by(pl.Series(counts, dtype=pl.UInt32)).explode(),
                          "name": names, "value": numbers})
    out.write_text(json.dumps({"files": len(files), "numbers": frame.height}))


def model_folders(copy: Path, every: int) -> list[Path]:
    folders = sorted(p for p in (copy / "results").iterdir() if p.is_dir())
    return folders[::every]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("copy", type=Path, help="a local copy of the embeddings-benchmark/results repository")
    parser.add_argument("--every", type=int, default=1, help="take every K-th model folder (1: the whole repository)")
    parser.add_argument("--json", type=Path, help="write the results to this JSON file")
    parser.add_argument("--keep-home", type=Path, help="ingest into this new folder and keep it (default: a temporary one)")
    parser.add_argument("--floor-of", nargs="*", type=Path, help=argparse.SUPPRESS)  # the floor's own process
    options = parser.parse_args()
    if options.floor_of is not None:
        floor(options.floor_of, options.json)
        return
    folders = model_folders(options.copy, options.every)
    files = sum(1 for f in folders for p in f.rglob("*.json") if p.name != "model_meta.json")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PREFECT_HOME": f"{tmp}/prefect", "PREFECT_LOGGING_LEVEL": "WARNING",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
        env.pop("PREFECT_API_URL", None)
        result = {"models": len(folders), "result_files": files, "every": options.every, "cores": os.cpu_count(),
                  "load_average_before": [round(x, 1) for x in os.getloadavg()]}
        result["floor"] = floor_measured(folders, env, Path(tmp) / "floor.json")
        if options.keep_home is not None and options.keep_home.exists():
            raise SystemExit(f"--keep-home {options.keep_home} exists: give a new folder")
        home = ["--home", str(options.keep_home or f"{tmp}/wh")]
        paths = [str(f) for f in folders]
        result["ingest"] = measured(["ingest", *home, *paths], env)
        result["rerun"] = measured(["ingest", *home, *paths], env)
        result["rank"] = measured(["rank", *home, "--benchmark", "mteb"], env)
        result["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    result["targets"] = TARGETS
    peak = max(result[k]["peak_mb"] for k in ("ingest", "rerun", "rank"))
    result["met"] = {
        "ingest_cpu_vs_floor": result["ingest"]["cpu_seconds"] <= TARGETS["ingest_cpu_vs_floor"] * result["floor"]["cpu_seconds"],
        "ingest_seconds": result["ingest"]["seconds"] <= TARGETS["ingest_seconds"],
        "rerun_seconds": result["rerun"]["seconds"] <= TARGETS["rerun_seconds"],
        "rank_seconds": result["rank"]["seconds"] <= TARGETS["rank_seconds"],
        "peak_mb": peak <= TARGETS["peak_mb"],
    }
    print(json.dumps(result, indent=1))
    if options.json:
        options.json.write_text(json.dumps(result, indent=1) + "\n")


def floor_measured(folders: list[Path], env: dict[str, str], counts: Path) -> dict:
    """:func:`floor` as a process of its own, measured as the commands are; what it read is written to ``counts``."""
    argv = [sys.executable, "-m", "benchmarks.bench_mteb", ".", "--json", str(counts), "--floor-of", *map(str, folders)]
    measured = measured_process(argv, env)
    if measured["exit"] != 0:
        raise RuntimeError(f"the floor script failed ({measured['exit']}): {' '.join(argv[:6])} ...")
    return measured | json.loads(counts.read_text())


if __name__ == "__main__":
    main()
