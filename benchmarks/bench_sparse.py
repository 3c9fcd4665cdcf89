"""Sparse benchmarks at scale: many systems, each scored on a small part of the tasks (issue 15).

    python -m benchmarks.bench_sparse --instances 2000 --json out.json [--workdir /tmp/x] [--keep]

Instance level, three synthetic benchmarks of the same number of scores
(``scorehouse synth`` data: tasks x 17 metrics x instances x 15 systems per task):

* dense: 20 tasks, the same 15 systems on every task;
* own systems: 20 tasks, each with its own 15 systems (300 systems);
* mixed: 700 systems, each scored on a random 10 % of 200 tasks (about 70 per
  task), with instances per task chosen for the same number of scores.

Each is ingested from Parquet, then ranked by the rank flow with its default
instance-level methods (what ``scorehouse rank --level instance`` runs).  The
floor, measured in the same run, is a bare per-instance rank with a
per-system sum of the dense benchmark's dumps (:func:`benchmarks.bench_scale.bare_rank`).

Task level: an MTEB-shaped benchmark (700 systems x 1,600 tasks, 90 % of the
cells missing) ranked with every default task-level method, one after the
other as the rank flow runs them (the methods that need complete ballots find
no complete system and are skipped, as in the flow).  Exact ``kemeny`` runs
with the default run's budget (:data:`transforms.rank_plan.DEFAULT_KEMENY_SECONDS`):
its one block of 700 systems is not proven in it, and the notes give the gap.

Every step reports wall time, CPU time, peak memory and its ratio to the
floor; the sparse rank-flow steps also their ratio to the dense one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.aggregators import AggregationError
from scorehouse.aggregators.synthetic import gumbel_scores, system_names
from benchmarks.bench_scale import Steps, bare_rank, in_workdir, parse_with_workdir
from scorehouse.transforms.rank_plan import NotApplicable, default_runs, run_method
from scorehouse.transforms.synth import SynthSpec

METRICS = 17
MTEB_SYSTEMS, MTEB_TASKS, MTEB_MISSING = 700, 1_600, 0.9


def own_systems(dumps: Path) -> None:
    """Give every task of the Parquet dumps its own systems: ``<task>-<system>``."""
    for path in sorted((dumps / "parquet").rglob("*.parquet")):  # a loop over task files (tens)
        frame = pl.read_parquet(path)
        frame.with_columns((pl.lit(f"{path.stem}-") + pl.col("System")).alias("System")).write_parquet(path)


def specs(instances: int) -> dict[str, SynthSpec]:
    """The three instance-level shapes, each with about ``20 * 17 * instances * 15`` scores."""
    n_scores = 20 * METRICS * instances * 15
    mixed_instances = max(1, round(n_scores / (200 * METRICS * 70)))
    common = {"metrics": METRICS, "phi": 0.5, "seed": 0}
    return {
        "dense": SynthSpec(tasks=20, instances=instances, systems=15, **common),
        "own systems": SynthSpec(tasks=20, instances=instances, systems=15, **common),
        "mixed": SynthSpec(tasks=200, instances=mixed_instances, systems=700, missing_fraction=0.9, **common),
    }


def mteb_ballots(seed: int) -> pl.DataFrame:
    """Task-level ballots: 700 systems x 1,600 tasks, a random 90 % of the cells missing."""
    rng = np.random.default_rng(seed)
    scores = gumbel_scores(rng, MTEB_TASKS, MTEB_SYSTEMS, phi=0.05)
    scores[rng.random(scores.shape) < MTEB_MISSING] = np.nan
    names = system_names(MTEB_SYSTEMS)
    voter, system = np.nonzero(~np.isnan(scores))
    return pl.DataFrame(
        {
            "voter": [f"task{v:04d}" for v in voter],
            "system": [names[s] for s in system],
            "score": scores[voter, system],
            "weight": np.ones(voter.size),
        }
    )


def rank_task_level(ballots: pl.DataFrame) -> dict[str, str]:
    """Every default task-level method, as the rank flow runs it; what each gave (ran, skipped or refused)."""
    outcome = {}
    for method_run in default_runs("task", True):
        try:
            result = run_method(ballots, "task", method_run)
            outcome[method_run.label] = f"ranked {result.n_systems} systems" + (f"; {result.notes[0][:80]}" if result.notes else "")
        except NotApplicable:
            outcome[method_run.label] = "skipped: no complete system"
        except AggregationError as error:
            outcome[method_run.label] = f"refused: {error}"
    return outcome


def run_bench(instances: int, workdir: Path) -> dict:
    from scorehouse.flows.ingest import ingest_flow
    from scorehouse.flows.rank import rank_flow
    from scorehouse.flows.synth import write_synthetic

    steps = Steps()
    load_at_start = os.getloadavg()
    ingest_flow([str(Path(__file__))], home=str(workdir / "warm-up"))  # the first call imports the parsers: not the rank
    floor = "floor: bare per-instance rank + per-system sum (dense)"
    outcomes: dict[str, dict] = {}
    for name, spec in specs(instances).items():
        dumps, home = workdir / f"dumps-{name}", workdir / f"home-{name}"
        written = write_synthetic(spec, dumps, formats=("parquet",))
        if name == "own systems":
            own_systems(dumps)
        if name == "dense":
            with steps.step(floor, None):
                bare_rank(sorted((dumps / "parquet").rglob("*.parquet")))
        report = ingest_flow([str(dumps / "parquet")], home=str(home))
        assert report.ok, "ingest failed"
        with steps.step(f"rank flow, {name} ({written['n_scores']:,} scores)", floor):
            result = rank_flow(home=str(home), level="instance")
        methods = result[0].methods
        failed = [m.error for m in methods if m.error]
        assert not failed, failed
        outcomes[name] = {m.run.label: (m.skipped or "ranked") + "".join(f"; {n[:100]}" for n in m.notes) for m in methods}
        shutil.rmtree(dumps)
    ballots = mteb_ballots(0)
    with steps.step(f"task level: MTEB-shaped, {MTEB_SYSTEMS} systems x {MTEB_TASKS} tasks, 90% missing", floor):
        outcomes["mteb"] = rank_task_level(ballots)
    rows = steps.finish()
    dense = next(r for r in rows if r["step"].startswith("rank flow, dense"))
    for row in rows:
        row["ratio_to_dense"] = row["wall_s"] / dense["wall_s"] if row["step"].startswith("rank flow") else None
    return {
        "instances": instances,
        "machine": {"cpus": os.cpu_count(), "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg()},
        "steps": rows,
        "outcomes": outcomes,
    }


def print_table(result: dict) -> None:
    print(f"{'step':80} {'wall s':>7} {'cpu s':>7} {'peak GB':>8} {'x floor':>8} {'x dense':>8}")
    for row in result["steps"]:
        ratio = f"{row['ratio_to_floor']:.2f}" if row["ratio_to_floor"] is not None else ""
        dense = f"{row['ratio_to_dense']:.2f}" if row["ratio_to_dense"] is not None else ""
        print(f"{row['step']:80} {row['wall_s']:7.1f} {row['cpu_s']:7.1f} {row['peak_rss_gb']:8.2f} {ratio:>8} {dense:>8}")
    for case, methods in result["outcomes"].items():
        print(f"{case}:")
        for method, what in methods.items():
            print(f"  {method:28} {what}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=500, help="instances per task of the dense case (2000: 10.2 M scores)")
    args = parse_with_workdir(parser, argv)
    result = in_workdir(args, lambda workdir: run_bench(args.instances, workdir))
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
