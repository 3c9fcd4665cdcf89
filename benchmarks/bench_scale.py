"""Scale benchmark: synthetic instance-level dumps of a given size through the whole pipeline, in one process.

    python -m benchmarks.bench_scale --scores 131000000 --json out.json [--workdir /tmp/x] [--keep]

Generates ``scorehouse synth`` data (Parquet and CSV dumps, one file per task,
a known true ranking), then times, one step after the other:

* the floor: a bare Polars scan of the Parquet dumps, and a bare per-instance
  rank with a per-system rank sum, file (task) by file;
* ingest from the Parquet dumps and from the CSV dumps (the real ingest flow);
* the instance rank tables (:func:`transforms.ballots.rank_table`) partition by partition;
* one-level Borda, two-level Borda and the mean of means, from one pass;
* ``borda_partial`` with 20% of the (system, task) cells left out;
* pairwise counts and Bradley–Terry;
* the rank flow with its default instance-level methods (what ``scorehouse
  rank --level instance`` runs), and ingest + rank together.

For every step it prints wall time, CPU time and peak memory (the process's
resident high-water mark, reset before the step) and the ratio to the floor
(ingest to the bare scan, ranking steps to the bare rank), checks that each
method's Kendall tau to the true ranking is above 0.9, and writes all of it
as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.aggregators.compare import kendall_tau
from scorehouse.aggregators.execution import finish_partitioned, partition_partials
from scorehouse.aggregators.partial import Voters, combine
from scorehouse.aggregators.synthetic import true_ranking
from scorehouse.transforms.ballots import rank_table
from scorehouse.transforms.dense import dense_partition
from scorehouse.transforms.synth import SynthSpec, instances_for, metric_names

CSV_TASKS_MAX = None  # every task is ingested from CSV too
MISSING_FOR_PARTIAL = 0.2


def rss_peak_gb() -> float:
    """The resident high-water mark (VmHWM) of this process, in GB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e9
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def reset_peak() -> bool:
    """Reset VmHWM to the current resident size (Linux ``clear_refs`` 5); False where not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Steps:
    """Times steps and keeps their measurements."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    @contextmanager
    def step(self, name: str, floor: str | None) -> None:
        reset_peak()
        wall, cpu = time.perf_counter(), cpu_seconds()
        yield
        self.rows.append(
            {
                "step": name,
                "wall_s": time.perf_counter() - wall,
                "cpu_s": cpu_seconds() - cpu,
                "peak_rss_gb": rss_peak_gb(),
                "floor": floor,
            }
        )

    def by_name(self, name: str) -> dict:
        return next(r for r in self.rows if r["step"] == name)

    def finish(self) -> list[dict]:
        for row in self.rows:
            row["ratio_to_floor"] = row["wall_s"] / self.by_name(row["floor"])["wall_s"] if row["floor"] else None
        return self.rows


def bare_scan(files: list[Path]) -> int:
    """A Polars scan of every Parquet dump, summing every score column (all bytes decoded)."""
    metrics = [c for c in pl.read_parquet_schema(files[0]) if c not in ("System", "Utterance")]
    totals = pl.scan_parquet(files).select(pl.len(), *(pl.col(m).sum() for m in metrics)).collect(engine="streaming")
    return int(totals.item(0, 0))


def bare_rank(files: list[Path]) -> pl.DataFrame:
    """Per dump file (task): every metric ranked within each instance, then summed per system."""
    sums = []
    for path in files:
        frame = pl.read_parquet(path)
        metrics = [c for c in frame.columns if c not in ("System", "Utterance")]
        sums.append(
            frame.select("System", *(pl.col(m).rank().over("Utterance") for m in metrics))
            .group_by("System")
            .agg(pl.sum_horizontal(metrics).sum().alias("rank_sum"))
        )
    return pl.concat(sums).group_by("System").agg(pl.col("rank_sum").sum()).sort("System")


def missing_cells(shape, fraction: float, seed: int) -> pl.DataFrame:  # noqa: ANN001
    """A reproducible ``fraction`` of the (task, system) cells of every partition, to leave out."""
    rng = np.random.default_rng(seed)
    tasks = [t for p in shape.partitions for t in p.tasks]
    cells = pl.DataFrame(
        {"task": np.repeat(tasks, len(shape.systems)).tolist(), "system": list(shape.systems) * len(tasks)}
    )
    return cells.filter(pl.Series(rng.random(cells.height) < fraction))


def partition_pass(warehouse, shape, metrics, methods, drop: pl.DataFrame | None = None):  # noqa: ANN001, ANN201
    """Each method's combined partials of every partition (the rank flow's partition tasks, without Prefect).

    ``drop`` lists (task, system) cells to treat as missing: their cells are
    blanked in the dense matrix, which is what leaving their rows out of the
    dumps gives (the voters keep their other systems).
    """
    from scorehouse.transforms.ballots import VOTER_SEPARATOR
    from scorehouse.warehouse.partitions import read_partition_arrow

    partials = []
    for partition in shape.partitions:
        dense = dense_partition(read_partition_arrow(warehouse, partition), metrics, shape.systems)
        scores = dense.scores
        if drop is not None:
            task_of_group = [g.split(VOTER_SEPARATOR)[0] for g in dense.group_names]
            blank = np.zeros((len(task_of_group), len(dense.systems)), dtype=bool)
            index = {s: i for i, s in enumerate(dense.systems)}
            for task, system in drop.iter_rows():  # a loop over (task, system) cells: hundreds
                if system in index:
                    blank[[g for g, t in enumerate(task_of_group) if t == task], index[system]] = True
            scores = np.where(blank[dense.groups], np.nan, scores)
        voters = Voters(dense.systems, scores, dense.weights, dense.groups, dense.group_names,
                        group_weights=dense.group_weights, absent=dense.absent)
        partials.append(partition_partials(voters, methods))
    return {m: combine([p[m] for p in partials], shape.systems) for m in methods}


def run_bench(n_scores: int, workdir: Path, seed: int, benchmarks: int, tasks: int) -> dict:
    from scorehouse.flows.ingest import ingest_flow
    from scorehouse.flows.rank import rank_flow
    from scorehouse.flows.synth import write_synthetic
    from scorehouse.warehouse.partitions import benchmark_shape, read_metrics, read_partition
    from scorehouse.warehouse.storage import Warehouse

    spec = SynthSpec(
        benchmarks=benchmarks, tasks=tasks,
        instances=instances_for(n_scores, benchmarks=benchmarks, tasks=tasks, metrics=17, systems=15),
        phi=0.5, corrupted_fraction=0.1, rescale=10.0, seed=seed,
    )
    steps = Steps()
    load_at_start = os.getloadavg()
    dumps = workdir / "dumps"
    with steps.step("synth (setup)", None):
        written = write_synthetic(spec, dumps)
    parquet_files = sorted((dumps / "parquet").rglob("*.parquet"))
    truth = true_ranking(spec.systems)

    with steps.step("floor: bare Parquet scan", None):
        assert bare_scan(parquet_files) * len(metric_names(spec.metrics)) == written["n_scores"]
    with steps.step("floor: bare per-instance rank + per-system sum", None):
        floor_sums = bare_rank(parquet_files)
    taus: dict[str, float] = {"floor rank sum": kendall_tau(dict(floor_sums.iter_rows()), truth)}

    home_parquet, home_csv = workdir / "home-parquet", workdir / "home-csv"
    ingest_flow([str(Path(__file__))], home=str(workdir / "warm-up"))  # the first call imports the parsers: not ingest
    with steps.step("ingest from Parquet dumps", "floor: bare Parquet scan"):
        report = ingest_flow([str(dumps / "parquet")], home=str(home_parquet))
    assert report.ok and sum(f.rows_landed for f in report.files) == written["n_scores"], "Parquet ingest lost rows"
    with steps.step("ingest from CSV dumps", "floor: bare Parquet scan"):
        report = ingest_flow([str(dumps / "csv")], home=str(home_csv))
    assert report.ok and sum(f.rows_landed for f in report.files) == written["n_scores"], "CSV ingest lost rows"
    shutil.rmtree(home_csv)

    warehouse = Warehouse(home_parquet)
    rank_floor = "floor: bare per-instance rank + per-system sum"
    shapes = []
    for b in range(spec.benchmarks):
        name = f"synth-{b:02d}"
        metrics = read_metrics(warehouse, name)
        shapes.append((name, metrics, benchmark_shape(warehouse, name, "instance", metrics)))

    with steps.step("instance rank tables", rank_floor):
        rows = 0
        for _, metrics, shape in shapes:
            for partition in shape.partitions:
                rows += rank_table(read_partition(warehouse, partition), metrics, level="instance").collect().height
    assert rows == written["n_scores"]

    results: dict[str, list] = {}
    with steps.step("borda one-level + two-level + mean of means", rank_floor):
        for name, metrics, shape in shapes:
            whole = partition_pass(warehouse, shape, metrics, ("borda", "mean"))
            results.setdefault("borda", []).append(finish_partitioned("borda", whole["borda"]).ranking)
            borda_two = finish_partitioned("borda", whole["borda"], two_step=True)
            results.setdefault("borda (two-level)", []).append(borda_two.ranking)
            mean_two = finish_partitioned("mean", whole["mean"], two_step=True)
            results.setdefault("mean (two-level)", []).append(mean_two.ranking)
    with steps.step(f"borda_partial, {MISSING_FOR_PARTIAL:.0%} (system, task) cells missing", rank_floor):
        for name, metrics, shape in shapes:
            drop = missing_cells(shape, MISSING_FOR_PARTIAL, seed)
            whole = partition_pass(warehouse, shape, metrics, ("borda_partial",), drop)
            ranking = finish_partitioned("borda_partial", whole["borda_partial"]).ranking
            results.setdefault("borda_partial (20% missing)", []).append(ranking)
    with steps.step("pairwise counts + bradley_terry", rank_floor):
        for name, metrics, shape in shapes:
            whole = partition_pass(warehouse, shape, metrics, ("bradley_terry",))
            results.setdefault("bradley_terry", []).append(finish_partitioned("bradley_terry", whole["bradley_terry"]).ranking)
    with steps.step("rank flow (scorehouse rank --level instance)", rank_floor):
        outcomes = rank_flow(home=str(home_parquet), level="instance")
    failed = [m.error for o in outcomes for m in o.methods if m.error]
    assert not failed, failed
    for method, rankings in results.items():
        taus[method] = float(np.mean([kendall_tau(r, truth) for r in rankings]))
    for outcome in outcomes:
        for m in outcome.methods:
            taus.setdefault(f"rank flow: {m.run.label}", 0.0)
            taus[f"rank flow: {m.run.label}"] += kendall_tau(m.ranking, truth) / len(outcomes)

    rows_out = steps.finish()
    ingest, rank = steps.by_name("ingest from Parquet dumps"), steps.by_name("rank flow (scorehouse rank --level instance)")
    rows_out.append(
        {
            "step": "full run: ingest (Parquet) + rank flow",
            "wall_s": ingest["wall_s"] + rank["wall_s"],
            "cpu_s": ingest["cpu_s"] + rank["cpu_s"],
            "peak_rss_gb": max(ingest["peak_rss_gb"], rank["peak_rss_gb"]),
            "floor": None,
            "ratio_to_floor": None,
        }
    )
    return {
        "scores": written["n_scores"],
        "spec": spec.as_dict(),
        # Load averages (1, 5, 15 min): other work on the machine stretches wall times, not CPU times.
        "machine": {"cpus": os.cpu_count(), "load_average_at_start": load_at_start,
                    "load_average_at_end": os.getloadavg()},
        "steps": rows_out,
        "kendall_tau": taus,
    }


def print_table(result: dict) -> None:
    print(f"{result['scores']:,} scores ({result['spec']['benchmarks']} benchmark(s) x {result['spec']['tasks']} tasks "
          f"x 17 metrics x {result['spec']['instances']} instances x 15 systems)")
    print(f"{'step':58} {'wall s':>8} {'cpu s':>8} {'peak GB':>8} {'x floor':>8}")
    for row in result["steps"]:
        ratio = f"{row['ratio_to_floor']:.2f}" if row["ratio_to_floor"] is not None else ""
        print(f"{row['step']:58} {row['wall_s']:8.1f} {row['cpu_s']:8.1f} {row['peak_rss_gb']:8.2f} {ratio:>8}")
    print("Kendall tau to the true ranking:")
    for method, tau in result["kendall_tau"].items():
        print(f"  {method:56} {tau:.3f}")


def parse_with_workdir(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser``'s arguments plus ``--json``, ``--workdir`` and ``--keep`` (shared by the scale benchmarks)."""
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--workdir", type=Path, help="where to generate (default: a fresh folder under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data and warehouses")
    return parser.parse_args(argv)


def in_workdir(args: argparse.Namespace, bench: Callable[[Path], dict]) -> dict:
    """``bench(workdir)`` in ``args.workdir`` (default: a fresh folder), removed afterwards unless ``args.keep``."""
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="scorehouse-bench-"))
    try:
        return bench(workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=int, default=1_000_000, help="scores to generate (default 1M)")
    parser.add_argument("--benchmarks", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=16, help="tasks per benchmark")
    parser.add_argument("--seed", type=int, default=0)
    args = parse_with_workdir(parser, argv)
    result = in_workdir(args, lambda workdir: run_bench(args.scores, workdir, args.seed, args.benchmarks, args.tasks))
    print_table(result)
    low = {m: t for m, t in result["kendall_tau"].items() if not t > 0.9}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    if low:
        print(f"Kendall tau not above 0.9: {low}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
