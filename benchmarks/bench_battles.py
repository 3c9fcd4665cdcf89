"""Arena-size battles: counting, Bradley–Terry, Elo and the bootstrap, side by side with evalica (issue 16).

    python -m benchmarks.bench_battles --battles 1000000 --systems 100 --json out.json [--evalica-resamples 10]

The battles come from the synthetic arena (:func:`transforms.synth_battles.synth_battles`,
seed 0).  Steps, each with wall time, CPU time and the process's peak resident
memory (its high-water mark reset before the step; the table also gives the
resident size before the steps, the data itself):

- validate the battles table (:func:`aggregators.build_battles`: checks, codes, play order);
- count + Bradley–Terry from the validated battles (``battle_counts`` and the
  Newton fit; ``prior=0``, the plain estimate evalica computes), and the whole
  ``aggregate_battles("bradley_terry", ...)`` (validation included);
- Elo over the battles in play order (``aggregate_battles("elo", ...)`` without
  its validation: the sequential pass);
- 1,000 bootstrap resamples of Bradley–Terry (multinomial draws of the (pair,
  outcome) cells, fitted in batches);
- evalica 0.4.2 on the same battles in the same run: Bradley–Terry and Elo
  (its Rust solver, string names in, as a user calls it) and its bootstrap of
  Bradley–Terry (percentile), on ``--evalica-resamples`` resamples, scaled to
  1,000 (each resample refits on all battles: the cost is linear in them).

The largest difference of centred log-strengths between ours and evalica's is
reported; so is the largest Elo difference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import evalica
import numpy as np

from scorehouse.aggregators import build_battles
from scorehouse.aggregators.battle_bootstrap import resampled_battle_scores
from scorehouse.aggregators.battle_ranking import fit_battles
from scorehouse.aggregators.battles import battle_counts
from scorehouse.aggregators.bradley_terry import bradley_terry_counts
from benchmarks.bench_scale import Steps
from scorehouse.transforms.synth_battles import synth_battles

TARGETS = {  # issue 16: seconds
    "count + Bradley–Terry (validated battles)": 0.1,
    "Elo over the sequence": 1.0,
    "bootstrap: 1,000 resamples of Bradley–Terry": 5.0,
}
WINNERS = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw,
           "tie (bothbad)": evalica.Winner.Draw}


def resident_gb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e9
    return float("nan")


def run_bench(n_battles: int, n_systems: int, evalica_resamples: int) -> dict:
    table = synth_battles(n_battles, n_systems=n_systems, seed=0).battles.sort("tstamp")
    xs, ys = table["model_a"].to_list(), table["model_b"].to_list()
    winners = [WINNERS[w] for w in table["winner"].to_list()]
    steps = Steps()
    baseline = resident_gb()
    with steps.step("validate battles (build_battles)", None):
        battles = build_battles(table)
    with steps.step("count + Bradley–Terry (validated battles)", None):
        ours = bradley_terry_counts(battle_counts(battles), prior=0.0, tol=1e-12).scores
    with steps.step("validate + count + Bradley–Terry (aggregate_battles)", None):
        fit_battles("bradley_terry", build_battles(table), {"prior": 0.0})
    with steps.step("evalica Bradley–Terry (names in)", None):
        theirs = evalica.bradley_terry(xs, ys, winners, tolerance=1e-12, limit=10_000)
    with steps.step("Elo over the sequence", None):
        elo_ours, _ = fit_battles("elo", battles, {"k": 4.0, "initial": 1000.0})
    with steps.step("evalica Elo (names in)", None):
        elo_theirs = evalica.elo(xs, ys, winners, k=4.0, initial=1000.0)
    params = {"prior": 0.5, "tol": 1e-9, "max_iter": 10_000, "disconnected": "separate"}
    with steps.step("bootstrap: 1,000 resamples of Bradley–Terry", None):
        resampled_battle_scores("bradley_terry", battles, params, n_resamples=1000, seed=0)
    name = f"evalica bootstrap: {evalica_resamples} resamples of Bradley–Terry"
    with steps.step(name, None):
        evalica.bootstrap(evalica.bradley_terry, xs, ys, winners, n_resamples=evalica_resamples,
                          bootstrap_method="percentile", random_state=0)
    rows = steps.finish()
    scaled = dict(steps.by_name(name))
    scaled.update(step="evalica bootstrap: 1,000 resamples (scaled)", wall_s=scaled["wall_s"] * 1000 / evalica_resamples,
                  cpu_s=scaled["cpu_s"] * 1000 / evalica_resamples)
    rows.append(scaled)
    log_theirs = np.log(theirs.scores.reindex(list(battles.systems)).to_numpy())
    elo_diff = elo_ours.scores - elo_theirs.scores.reindex(list(battles.systems)).to_numpy()
    for row in rows:
        row["target_s"] = TARGETS.get(row["step"])
    return {
        "battles": n_battles,
        "systems": n_systems,
        "resident_before_gb": baseline,
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "load_average": os.getloadavg(),
        "max_log_strength_difference_vs_evalica": float(np.max(np.abs(ours - (log_theirs - log_theirs.mean())))),
        "max_elo_difference_vs_evalica": float(np.max(np.abs(elo_diff))),
        "steps": rows,
    }


def markdown(result: dict) -> str:
    lines = [
        f"{result['battles']:,} battles among {result['systems']} systems (resident before the steps: "
        f"{result['resident_before_gb']:.2f} GB; largest log-strength difference from evalica "
        f"{result['max_log_strength_difference_vs_evalica']:.1e}, largest Elo difference "
        f"{result['max_elo_difference_vs_evalica']:.1e})",
        "",
        "| step | wall s | CPU s | peak GB | target s |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in result["steps"]:
        target = "" if row["target_s"] is None else f"≤ {row['target_s']:g}"
        lines.append(f"| {row['step']} | {row['wall_s']:.3f} | {row['cpu_s']:.3f} | {row['peak_rss_gb']:.2f} | {target} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--evalica-resamples", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = run_bench(args.battles, args.systems, args.evalica_resamples)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
