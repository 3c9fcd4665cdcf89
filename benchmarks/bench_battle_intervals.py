"""What a battles snapshot's stored intervals cost: the bootstrap ``rank`` runs for each battle method, on generated battles.

Run: ``OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks.bench_battle_intervals`` (one BLAS thread, as the
``scorehouse`` command sets it: docs/performance.md)

For each (method, battles, systems) below: the battles of the synthetic arena
(:func:`transforms.synth_battles.synth_battles`, seed 0) bootstrapped with the stored intervals' settings
(:mod:`transforms.snapshot_intervals`: :data:`RESAMPLES` resamples, seed :data:`SEED`) by the one battle bootstrap
(:func:`aggregators.battle_bootstrap.resampled_battle_scores`), timed with the 1-minute load average before it,
and what the budget (:func:`transforms.snapshot_intervals.battles_unaffordable`) says of the run.  The per-battle
cost sets :data:`BATTLE_GAMES` (elo, trueskill replay the battles), the per-systems³ cost :data:`BATTLE_SOLVES`.
"""

from __future__ import annotations

import os
import time

from scorehouse.aggregators import build_battles
from scorehouse.aggregators.battle_bootstrap import resampled_battle_scores
from scorehouse.aggregators.battle_ranking import fit_battles
from scorehouse.transforms.snapshot_intervals import RESAMPLES, SEED, battles_unaffordable
from scorehouse.transforms.synth_battles import synth_battles

RUNS = (  # (method, battles, systems): the replayed methods at the games budget, bradley_terry around its solves budget
    ("elo", 20_000, 20),
    ("trueskill", 20_000, 20),
    ("bradley_terry", 20_000, 100),
    ("bradley_terry", 100_000, 200),
    ("bradley_terry", 100_000, 250),
)


def main() -> None:
    print("| method | battles x systems | 200 resamples | per battle | per systems³ | load (1 min) | stored |\n"
          "|---|---|---:|---:|---:|---|---|")
    for method, n_battles, n_systems in RUNS:
        battles = build_battles(synth_battles(n_battles, n_systems=n_systems, seed=0).battles)
        _, effective = fit_battles(method, battles, {})
        load, start = os.getloadavg()[0], time.perf_counter()
        resampled_battle_scores(method, battles, effective, n_resamples=RESAMPLES, seed=SEED)
        seconds = time.perf_counter() - start
        reason = battles_unaffordable(method, n_systems, n_battles)
        print(f"| {method} | {n_battles:,} x {n_systems} | {seconds:.2f} s | "
              f"{seconds / RESAMPLES / n_battles * 1e9:.0f} ns | {seconds / RESAMPLES / n_systems**3 * 1e9:.1f} ns | "
              f"{load:.1f} | {'no: ' + reason if reason else 'yes'} |", flush=True)


if __name__ == "__main__":
    main()
