"""Exact Kemeny at real size: every bundled task-level benchmark, and 200- and 300-system Mallows profiles.

    python -m benchmarks.bench_kemeny [--json docs/bench-kemeny.json] [--time-limit 60]

Steps:

- every benchmark of ``data/bundled`` that has task-level scores, parsed with
  the project's parsers (a cell scored by two files keeps the later file's
  score, as the warehouse's ``scores`` view does) and ranked by ``kemeny``
  with the time limit; target: proven optimal, GLUE (105 systems) in 10 s;
- ``mallows_200 phi=...``: seeded Mallows profiles (Mallows, 1957, "Non-null ranking
  models", Biometrika), 200 systems, ``--voters`` voters, each dispersion of
  ``--phi`` (0.95: a system strays about 19 places from the reference order
  in a voter's ranking, 0.98: about 49), sampled by repeated insertion (Doignon, Pekeč and Regenwetter,
  2004, "The repeated insertion model for rankings", Psychometrika); target:
  proven in 60 s, or an honest gap;
- ``mallows_300 phi=0.98`` (issue 27): 300 systems, 20 voters; target: proven within 30 s of CPU
  (the time limit is CPU seconds: :class:`aggregators.kemeny_order.Budget`);
- ``lazy_vs_all``: the integer program of the largest majority-graph block of
  each benchmark with more than ``DP_MAX_SYSTEMS`` systems in it, solved with
  the 3-cycle rows added lazily and all at once (what chose the lazy default).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "data" / "bundled"
CELL = ["benchmark", "task", "metric", "instance", "system"]
TARGETS = {"glue": 10.0, "mallows_200": 60.0, "mallows_300": 30.0}


def bundled_task_ballots() -> dict[str, pl.DataFrame]:
    """Task-level ballots of every bundled benchmark, by name (pickles and non-score files left out)."""
    from scorehouse.flows.ingest import expand_paths
    from scorehouse.transforms.ballots import ballots
    from scorehouse.transforms.catalog import check_rules, resolve_metrics
    from scorehouse.transforms.parsers import parse_file
    from scorehouse.transforms.parsers.base import ParseError
    from scorehouse.transforms.validate import validate_rows

    files, _, _ = expand_paths([BUNDLED])
    frames = []
    for path in files:
        if path.suffix == ".pickle":
            continue
        try:
            _, parsed = parse_file(path)
        except ParseError:  # experiment outputs and other files that hold no scores
            continue
        frames.append(validate_rows(parsed.rows, file=str(path), load_id=str(path)).scores)
    scores = pl.concat(frames, how="vertical_relaxed").filter(pl.col("instance").is_null())
    scores = scores.unique(CELL, keep="last", maintain_order=True)
    rules = check_rules(pl.read_csv(REPO / "warehouse" / "defaults" / "metric_rules.csv", infer_schema=False), "rules")
    metrics = resolve_metrics(scores, rules)
    return {
        name: ballots(part, metrics, level="task").collect()
        for (name,), part in sorted(scores.partition_by("benchmark", as_dict=True).items())
    }


def mallows_ballots(n_systems: int, n_voters: int, phi: float, seed: int) -> pl.DataFrame:
    """Complete ballots of a Mallows model around the order S000 > S001 > ... (repeated insertion).

    Item ``i`` (0-based, in reference order) is inserted at position ``j`` of
    the ``i + 1`` slots of the ranking so far with probability proportional to
    ``phi ** (i - j)``: ``phi = 1`` is uniform, small ``phi`` stays near the reference.
    """
    from scorehouse.aggregators.synthetic import system_names

    rng = np.random.default_rng(seed)
    position = np.zeros((n_voters, n_systems), dtype=np.int64)
    for item in range(1, n_systems):  # one loop over systems, vectorised over voters
        weights = phi ** (item - np.arange(item + 1))
        slot = rng.choice(item + 1, size=n_voters, p=weights / weights.sum())
        earlier = position[:, :item]
        earlier += earlier >= slot[:, None]
        position[:, item] = slot
    return pl.DataFrame({
        "voter": np.repeat([f"v{v:03d}" for v in range(n_voters)], n_systems),
        "system": np.tile(system_names(n_systems), n_voters),
        "score": (n_systems - position).ravel().astype(float),
    })


def rank(name: str, table: pl.DataFrame, time_limit: float) -> dict:
    from scorehouse.aggregators import run

    start, cpu = time.perf_counter(), time.process_time()
    result = run("kemeny", table, params={"time_limit": time_limit})
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "step": name,
        "systems": table["system"].n_unique(),
        "voters": table["voter"].n_unique(),
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "proven": result.notes[0].startswith("minimum"),
        "notes": list(result.notes),
    }


def lazy_vs_all(name: str, table: pl.DataFrame, time_limit: float) -> dict | None:
    from scorehouse.aggregators import build_profile
    from scorehouse.aggregators.kemeny import COST_TOLERANCE, DP_MAX_SYSTEMS, pair_costs
    from scorehouse.aggregators.kemeny_ilp import solve_order
    from scorehouse.aggregators.kemeny_order import Budget
    from scorehouse.aggregators.majority import majority
    from scorehouse.aggregators.majority_components import majority_blocks

    profile = build_profile(table)
    counts = majority(profile)
    block = max(majority_blocks(counts.beats), key=len)
    if len(block) <= DP_MAX_SYSTEMS:
        return None
    costs = pair_costs(counts)[np.ix_(block, block)]
    tolerance = COST_TOLERANCE * max(float(profile.weights.sum()), 1.0)
    mean_weight = float(profile.weights.mean())
    timing = {"step": f"lazy_vs_all {name}", "block_systems": len(block)}
    for lazy in (True, False):
        start = time.perf_counter()
        solution = solve_order(costs, budget=Budget(time_limit), tolerance=tolerance,
                               mean_weight=mean_weight, lazy=lazy)
        timing["lazy_s" if lazy else "all_at_once_s"] = round(time.perf_counter() - start, 3)
        timing["lazy_proven" if lazy else "all_at_once_proven"] = solution.optimal
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--voters", type=int, default=20)
    parser.add_argument("--phi", type=float, nargs="+", default=[0.95, 0.98])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tables = bundled_task_ballots()
    for phi in args.phi:
        tables[f"mallows_200 phi={phi:g}"] = mallows_ballots(200, args.voters, phi, args.seed)
    tables["mallows_300 phi=0.98"] = mallows_ballots(300, args.voters, 0.98, args.seed)
    results = []
    for name, table in tables.items():
        result = rank(name, table, args.time_limit)
        target = TARGETS.get(name.split(" ")[0])
        if target:
            result["target"] = f"proven, < {target:g} s"
            result["met"] = result["proven"] and result["cpu_s"] < target
        results.append(result)
        print(f"{name:22s} {result['systems']:4d} systems {result['wall_s']:8.3f} s  "
              f"{'proven' if result['proven'] else 'NOT PROVEN'}  {result['notes'][1:]}", flush=True)
    for name, table in tables.items():
        timing = lazy_vs_all(name, table, args.time_limit)
        if timing:
            results.append(timing)
            print(json.dumps(timing), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
