"""Speed and memory of the ranking core (the targets of the ranking-core issue).

    python -m benchmarks.bench_core [--cells 10000000] [--json bench-results/core.json]

Steps, each in its own process so that its peak memory is its own:

- ``task_methods_glue``: every registered method but ``kemeny`` (whose
  exact solver is measured on every bundled benchmark, GLUE included, by
  :mod:`benchmarks.bench_kemeny`) on the real GLUE leaderboard of
  RankingNLPSystems (105 systems, 14 voters), after import and one warm-up;
  target: under 0.2 s in total.
- ``kemeny_20``: exact Kemeny on 20 systems (synthetic, 14 voters); target 10 s.
- ``borda_partial_10m`` and ``two_level_borda_10m``: on ``--cells`` (voter,
  system) cells of a synthetic benchmark (20 systems, 100 groups, 20% of the
  cells missing for borda_partial (half of them as null scores, half as absent rows,
  rows shuffled), complete for Borda); targets: 20 s and 4 GB
  each, the whole ``aggregate`` call from the long ballots included.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GLUE = REPO / "data" / "bundled" / "RankingNLPSystems" / "data" / "glue.data"
STEPS = ("task_methods_glue", "kemeny_20", "borda_partial_10m", "two_level_borda_10m")
TARGETS = {"task_methods_glue": (0.2, None), "kemeny_20": (10.0, None),
           "borda_partial_10m": (20.0, 4.0), "two_level_borda_10m": (20.0, 4.0)}


def glue_ballots():  # noqa: ANN201
    import polars as pl

    from scorehouse.transforms.ballots import ballots
    from scorehouse.transforms.catalog import check_rules, resolve_metrics
    from scorehouse.transforms.parsers import parse_file
    from scorehouse.transforms.validate import validate_rows

    _, parsed = parse_file(GLUE)
    scores = validate_rows(parsed.rows, file=str(GLUE), load_id="bench").scores
    rules = check_rules(pl.read_csv(REPO / "warehouse" / "defaults" / "metric_rules.csv", infer_schema=False), "rules")
    return ballots(scores, resolve_metrics(scores, rules), level="task").collect()


def run_step(step: str, cells: int) -> dict:
    import polars as pl

    from scorehouse.aggregators import REGISTRY, AggregationError, aggregate
    from scorehouse.aggregators.synthetic import synthetic_ballots

    def attempt(name: str, table) -> bool:  # noqa: ANN001
        """Run one method; a refusal (e.g. geometric mean of GLUE's zero MCC scores) counts, timed too."""
        try:
            aggregate(name, table)
        except AggregationError:
            return False
        return True

    if step == "task_methods_glue":
        table = glue_ballots()
        methods = [m for m in sorted(REGISTRY) if m != "kemeny"]
        for name in methods:  # warm-up: first calls compile regexes, import scipy parts
            attempt(name, table)
        start, cpu = time.perf_counter(), time.process_time()
        refused = [name for name in methods if not attempt(name, table)]
        detail = {"methods": len(methods), "refused": refused,
                  "systems": table["system"].n_unique(), "voters": table["voter"].n_unique()}
    elif step == "kemeny_20":
        table = synthetic_ballots(20, 14, phi=0.05, seed=0)
        start, cpu = time.perf_counter(), time.process_time()
        aggregate("kemeny", table)
        detail = {"systems": 20, "voters": 14}
    else:
        n_systems = 20
        missing = 0.2 if step == "borda_partial_10m" else 0.0
        table = synthetic_ballots(n_systems, cells // n_systems, phi=0.01, seed=0, missing_fraction=missing, n_groups=100)
        if missing:
            # as real dumps leave them: half the missing cells have no row at all, rows in any order
            absent = pl.col("score").is_null() & (pl.int_range(pl.len()) % 2 == 0)
            table = table.filter(~absent).sample(fraction=1.0, shuffle=True, seed=0)
        start, cpu = time.perf_counter(), time.process_time()
        if step == "borda_partial_10m":
            aggregate("borda_partial", table)
        else:
            aggregate("borda", table, two_step=True)
        detail = {"cells": table.height, "missing": missing, "groups": 100}
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    return {"step": step, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_gb": round(peak_gb, 2), **detail}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=10_000_000)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)  # internal: one step in this process
    args = parser.parse_args()
    if args.step:
        print(json.dumps(run_step(args.step, args.cells)))
        return
    results = []
    for step in STEPS:
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_core", "--step", step, "--cells", str(args.cells)],
            cwd=REPO, capture_output=True, text=True, check=True,
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        seconds, gigabytes = TARGETS[step]
        result["target"] = f"< {seconds} s" + (f", < {gigabytes} GB" if gigabytes else "")
        result["met"] = result["wall_s"] < seconds and (gigabytes is None or result["peak_gb"] < gigabytes)
        results.append(result)
        print(f"{step:22s} {result['wall_s']:8.3f} s wall {result['cpu_s']:8.3f} s cpu "
              f"{result['peak_gb']:6.2f} GB peak   target {result['target']:16s} {'met' if result['met'] else 'MISSED'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
