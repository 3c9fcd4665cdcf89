"""The main job's phases on the bundled data (``make run``): ingest, rank (with the intervals it stores), report + site.

Run: ``.venv/bin/python -m benchmarks.bench_run_phases [--home DIR]`` (default: a fresh temporary home).

Each phase is timed in this process (wall and CPU seconds, :func:`time.process_time`), the 1-minute load
average printed before and after each one (the machine is shared; the times depend on it); then the
rank's share spent on the stored intervals: every latest score-level snapshot's bootstrap run again by
:func:`transforms.snapshot_intervals.snapshot_intervals` on its ballots, timed per method run, the five
slowest listed, and the runs the budget leaves without an interval counted.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from scorehouse import runtime
from scorehouse.flows.ingest import expand_paths, ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.flows.run import BUNDLED_DATA, export_latest
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import MethodRun, VoterSelection
from scorehouse.transforms.snapshot_intervals import snapshot_intervals, unaffordable
from scorehouse.warehouse.catalog import user_query
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.storage import Warehouse


def timed(name: str, step) -> None:  # noqa: ANN001
    load, wall, cpu = os.getloadavg()[0], time.perf_counter(), time.process_time()
    step()
    print(f"| {name} | {time.perf_counter() - wall:.1f} s | {time.process_time() - cpu:.1f} s | "
          f"{load:.1f} -> {os.getloadavg()[0]:.1f} |", flush=True)


def interval_runs(warehouse: Warehouse) -> None:
    """Each latest score-level snapshot's intervals computed again, one method run at a time."""
    manifests = user_query(warehouse, "SELECT benchmark, level, method, parameters, n_systems, n_voters "
                                      "FROM latest_snapshots WHERE level <> 'battles' ORDER BY benchmark, level")
    times, skipped, read = [], 0, {}
    for benchmark, level, method, parameters, n_systems, n_voters in manifests.iter_rows():
        run = MethodRun.from_parameters(method, json.loads(parameters or "{}"))
        if unaffordable(method, n_systems, n_voters):
            skipped += 1
            continue
        if (benchmark, level) not in read:
            read = {(benchmark, level): benchmark_scores(warehouse, benchmark, level, ranked_only=True)}
        scores, metrics = read[(benchmark, level)]
        ballots = make_ballots(VoterSelection.of(run).select(scores), metrics, level=level).collect()
        start = time.perf_counter()
        snapshot_intervals(ballots, level, run)
        times.append((time.perf_counter() - start, f"{benchmark} {run.label} ({n_systems} x {n_voters})"))
    print(f"intervals of {len(times)} method runs: {sum(t for t, _ in times):.1f} s; {skipped} over the budget")
    for seconds, what in sorted(times, reverse=True)[:5]:
        print(f"  {seconds:.2f} s  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="bench-run-")) / "home"
    files, _, _ = expand_paths([BUNDLED_DATA])
    dumps = [str(f) for f in files if f.suffix != ".pickle"]
    print("| phase | wall | CPU | load average (1 min) |\n|---|---|---|---|")
    timed("ingest", lambda: ingest_flow(dumps, home=str(home), trust_pickle=False))
    timed("rank", lambda: rank_flow(home=str(home)))
    timed("report + site", lambda: runtime.call(export_latest, Warehouse(home)))
    interval_runs(Warehouse(home))


if __name__ == "__main__":
    main()
