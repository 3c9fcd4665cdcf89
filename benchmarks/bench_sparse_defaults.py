"""Are the default rankings right on sparse leaderboards? Kendall tau of every default method (issue 26).

    python -m benchmarks.bench_sparse_defaults [--json docs/bench-sparse-defaults.json] [--seeds 5]

Two kinds of truth:

* **Known truth** (synthetic): a Plackett-Luce leaderboard of 40 systems on 30 tasks, system ``i`` scoring
  ``phi * i + Gumbel`` on every task (Colombo et al. 2022, :func:`aggregators.synthetic.gumbel_scores`), its
  true order the index.  Systems are scored on different task subsets: 60 % on 70-100 % of the tasks, 25 %
  on 50-70 %, 15 % on 2 to 5 tasks only.  A second case gives the tasks a difficulty (an offset of 0 to
  -10, hard tasks lower) and a scale (1 to 3): each task's order is still Plackett-Luce, but the partly
  covered systems lack the hard tasks more often (as on public leaderboards, where a late or small entry
  skips the expensive tasks), so a mean over the tasks a system has is lifted by what it lacks.
* **The source's own order** (real): the GLUE, SuperGLUE and VALUE leaderboards of Vote'n'Rank and XTREME
  with its missing cells (MissingDataRanking), bundled under ``data/bundled``, ingested as a user would;
  the order is the leaderboard's own average (``Score``, VALUE's ``Meta-Ave``; not a voter).  Each is ranked as published and with
  cells masked (per seed: 20 % of the systems keep 2 voters only, 30 % of the other cells are removed).

Every default method of the data's shape runs as ``scorehouse rank`` runs it
(:func:`transforms.rank_plan.run_method`: coverage, complete part, method).  Reported per method: Kendall
tau-b (scipy) between its scores and the truth over the systems it ranks, the systems ranked, and the
inversions by coverage: pairs where a system scored on under 75 % of the voters is ranked above a truly
better one scored on at least 90 % ("low over high"), and the reverse ("high over low"), each with the
number of such pairs there are (``low_worse_pairs``, ``low_better_pairs``): noise makes both, a bias toward
low coverage makes the first rate (inversions per pair) exceed the second.  ``mean_available`` (the mean
over the voters a system has, no longer a default) is reported beside the defaults.  Minimum over seeds and
mean are printed; results go to ``docs/bench-sparse-defaults.json`` and are summarised in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import kendalltau

from scorehouse.aggregators import AggregationError
from scorehouse.aggregators.synthetic import gumbel_scores, system_names
from scorehouse.transforms.rank_plan import DEFAULT_COVERAGE, MethodRun, default_runs, run_method

BUNDLED = Path(__file__).resolve().parents[1] / "data" / "bundled"
REAL = {
    "glue": BUNDLED / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv",
    "superglue": BUNDLED / "vote_and_rank" / "tables" / "leaderboards - SuperGLUE.csv",
    "value": BUNDLED / "vote_and_rank" / "tables" / "leaderboards - VALUE.csv",
    "xtreme-missing": BUNDLED / "MissingDataRanking" / "example_data_cli" / "xtreme_missing.csv",
}
# The task holding each leaderboard's own average (not ranked, not a voter): its order is the source's.
SOURCE_ORDER = {"glue": "Score", "superglue": "Score", "value": "Meta-Ave", "xtreme-missing": "Score"}
SYSTEMS, TASKS, PHI = 40, 30, 0.08
MIN_RANKED = 3  # a tau over fewer systems says nothing (a method ranking the complete systems only may rank 1 or 2)
LOW, HIGH = 0.75, 0.9  # coverage below LOW ranked above a better system covered at HIGH or more: an inversion
SKIP_HARD = 1.0  # with difficulty: how much a partly covered system prefers to drop the hard tasks (0: at random)
BESIDE = (MethodRun("mean_available", min_coverage=DEFAULT_COVERAGE),)  # reported beside the defaults


def plackett_luce_ballots(seed: int, difficulty: bool = False) -> tuple[pl.DataFrame, dict[str, float]]:
    """The sparse synthetic leaderboard of the module docstring and its truth (system -> true strength);
    ``difficulty``: tasks of different difficulty and scale, the hard ones more often missing."""
    rng = np.random.default_rng(seed)
    scores = gumbel_scores(rng, TASKS, SYSTEMS, phi=PHI)
    kind = rng.choice(3, size=SYSTEMS, p=[0.6, 0.25, 0.15])
    share = np.select([kind == 0, kind == 1], [rng.uniform(0.7, 1.0, SYSTEMS), rng.uniform(0.5, 0.7, SYSTEMS)],
                      rng.integers(2, 6, SYSTEMS) / TASKS)
    order = rng.random((TASKS, SYSTEMS))
    if difficulty:
        hardness = rng.random(TASKS)
        scores = scores * rng.uniform(1.0, 3.0, TASKS)[:, None] - 10.0 * hardness[:, None]
        order = order + SKIP_HARD * hardness[:, None]  # the tasks kept are the first in this order: hard ones last
    kept = order.argsort(0).argsort(0) < np.maximum(1, np.round(share * TASKS))
    names = system_names(SYSTEMS)
    voter, system = np.nonzero(kept)
    ballots = pl.DataFrame({"voter": [f"task{v:02d}" for v in voter], "system": [names[s] for s in system],
                            "score": scores[voter, system], "weight": np.ones(voter.size)})
    return ballots, {name: float(i) for i, name in enumerate(names)}


def masked(ballots: pl.DataFrame, seed: int) -> pl.DataFrame:
    """``ballots`` with cells removed: 20 % of the systems keep 2 voters only, 30 % of the other cells go."""
    rng = np.random.default_rng(seed)
    scored = ballots.filter(pl.col("score").is_not_null())
    systems = scored.get_column("system").unique().sort()
    few = systems.filter(pl.Series(rng.random(systems.len()) < 0.2))
    drawn = scored.with_columns(draw=pl.Series(rng.random(scored.height)))
    keep_two = pl.col("draw").rank("ordinal").over("system") <= 2
    kept = pl.when(pl.col("system").is_in(few.implode())).then(keep_two).otherwise(pl.col("draw") >= 0.3)
    return drawn.filter(kept).drop("draw")


def coverage_inversions(systems: list[str], scores: np.ndarray, truth: dict[str, float],
                        coverage: dict[str, float]) -> dict[str, int]:
    """Pairs of a system covered under :data:`LOW` and one covered at :data:`HIGH` or more that the method orders
    against the truth, by which side it favours: a bias toward low coverage shows as more ``low_above``."""
    low = [(truth[s], x) for s, x in zip(systems, scores, strict=True) if coverage[s] < LOW]
    high = [(truth[s], x) for s, x in zip(systems, scores, strict=True) if coverage[s] >= HIGH]
    low_above = sum(1 for t_low, x_low in low for t_high, x_high in high if t_high > t_low and x_low > x_high)
    high_above = sum(1 for t_low, x_low in low for t_high, x_high in high if t_low > t_high and x_high > x_low)
    low_worse = sum(1 for t_low, _ in low for t_high, _ in high if t_high > t_low)
    low_better = sum(1 for t_low, _ in low for t_high, _ in high if t_low > t_high)
    return {"low_above": low_above, "high_above": high_above, "low_worse_pairs": low_worse,
            "low_better_pairs": low_better}


def evaluate(ballots: pl.DataFrame, truth: dict[str, float]) -> dict[str, dict]:
    """Kendall tau to ``truth``, systems ranked and inversions by coverage of every default method."""
    scored = ballots.filter(pl.col("score").is_not_null() & (pl.col("weight") > 0))
    n_voters = ballots.filter(pl.col("weight") > 0).get_column("voter").n_unique()
    coverage = dict(scored.group_by("system").agg(pl.col("voter").n_unique() / n_voters).iter_rows())
    has_missing = min(coverage.values()) < 1.0 or len(coverage) < ballots.get_column("system").n_unique()
    out = {}
    for method_run in [*default_runs("task", has_missing), *(BESIDE if has_missing else ())]:
        try:
            ranking = run_method(ballots, "task", method_run).ranking.filter(pl.col("system").is_in(list(truth)))
        except AggregationError as error:
            out[method_run.label] = {"skipped": str(error)[:100]}
            continue
        systems, scores = ranking.get_column("system").to_list(), ranking.get_column("score").to_numpy()
        if len(systems) < MIN_RANKED:
            out[method_run.label] = {"skipped": f"ranked {len(systems)} system(s) only (complete systems)"}
            continue
        tau = kendalltau(scores, [truth[s] for s in systems]).statistic
        out[method_run.label] = {"tau": round(float(tau), 3), "ranked": len(systems),
                                 **coverage_inversions(systems, scores, truth, coverage)}
    return out


def real_leaderboards(workdir: Path) -> dict[str, tuple[pl.DataFrame, dict[str, float]]]:
    """The task-level ballots and the source's own order of each real leaderboard, ingested into ``workdir``."""
    from scorehouse.flows.ingest import ingest_flow
    from scorehouse.transforms.ballots import ballots as make_ballots
    from scorehouse.warehouse.queries import benchmark_scores
    from scorehouse.warehouse.storage import Warehouse

    home = workdir / "home"
    ingest_flow([str(p) for p in REAL.values()], home=str(home))
    out = {}
    for benchmark in REAL:
        scores, metrics = benchmark_scores(Warehouse(home), benchmark, "task")
        source = scores.filter(pl.col("task") == SOURCE_ORDER[benchmark]).drop_nulls("score")
        truth = dict(source.select("system", "score").iter_rows())
        out[benchmark] = (make_ballots(scores, metrics, level="task").collect(), truth)
    return out


def summary(runs: list[dict[str, dict]]) -> dict[str, dict]:
    """Per method over the seeds: the lowest and mean tau, and the inversions in all."""
    methods = dict.fromkeys(m for r in runs for m in r)
    out = {}
    for method in methods:
        taus = [r[method]["tau"] for r in runs if "tau" in r.get(method, {})]
        if not taus:
            out[method] = {"skipped": next(r[method]["skipped"] for r in runs if method in r)}
            continue
        out[method] = {"tau_min": min(taus), "tau_mean": round(float(np.mean(taus)), 3),
                       "ranked": max(r[method].get("ranked", 0) for r in runs if method in r),
                       **{side: sum(r[method].get(side, 0) for r in runs if method in r)
                          for side in ("low_above", "high_above", "low_worse_pairs", "low_better_pairs")}}
    return out


def run_bench(seeds: int, workdir: Path) -> dict[str, dict]:
    result = {"plackett-luce sparse": summary([evaluate(*plackett_luce_ballots(s)) for s in range(seeds)]),
              "plackett-luce sparse, tasks of different difficulty": summary(
                  [evaluate(*plackett_luce_ballots(s, difficulty=True)) for s in range(seeds)])}
    for benchmark, (ballots, truth) in real_leaderboards(workdir).items():
        result[f"{benchmark} as published"] = summary([evaluate(ballots, truth)])
        if benchmark != "xtreme-missing":
            result[f"{benchmark} masked"] = summary([evaluate(masked(ballots, s), truth) for s in range(seeds)])
    return result


def print_table(result: dict[str, dict]) -> None:
    for case, methods in result.items():
        print(f"\n{case}")
        for method, row in methods.items():
            if "skipped" in row:
                print(f"  {method:<16} skipped: {row['skipped']}")
            else:
                print(f"  {method:<16} tau min {row['tau_min']:+.3f}  mean {row['tau_mean']:+.3f}  "
                      f"ranked {row['ranked']:>3}  inversions low over high {row['low_above']:>3} of "
                      f"{row['low_worse_pairs']:>4}, high over low {row['high_above']:>3} of {row['low_better_pairs']:>4}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="synthetic leaderboards and masks per case")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        result = run_bench(args.seeds, Path(workdir))
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
