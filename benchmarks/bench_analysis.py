"""Time the two robustness targets on the real data of a warehouse (build one with ``scorehouse run``).

    python benchmarks/bench_analysis.py [--home DIR]

1. the drop-tasks suite on GLUE: 100 repetitions x every subset size x 6 methods (target: under 30 s);
2. the missing-score curve on GEM (task level): 20 rates x 100 repetitions for borda_partial (target: under 30 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorehouse.aggregators import build_profile  # noqa: E402
from scorehouse.aggregators.robustness_missing import missing_scores  # noqa: E402
from scorehouse.aggregators.robustness_tasks import task_subsets  # noqa: E402
from scorehouse.transforms.ballots import ballots  # noqa: E402
from scorehouse.transforms.rank_plan import complete_ballots  # noqa: E402
from scorehouse.warehouse.queries import benchmark_scores  # noqa: E402
from scorehouse.warehouse.storage import Warehouse  # noqa: E402

METHODS = ["mean", "median", "borda", "copeland", "minimax", "borda_partial"]


def profile_of(warehouse: Warehouse, benchmark: str, complete: bool):
    scores, metrics = benchmark_scores(warehouse, benchmark, "task")
    frame = ballots(scores, metrics, level="task").collect()
    return build_profile(complete_ballots(frame, "task")[0] if complete else frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="scorehouse.warehouse home (default: $SCOREHOUSE_HOME)")
    args = parser.parse_args()
    warehouse = Warehouse(args.home)
    glue = profile_of(warehouse, "glue", complete=True)
    start = time.perf_counter()
    table = task_subsets(glue, METHODS, repetitions=100, seed=0)
    print(f"tasks, GLUE {glue.scores.shape[1]} systems x {len(set(np.asarray(glue.groups)[glue.weights > 0]))} tasks, "
          f"{len(METHODS)} methods x 100 repetitions x every size ({table.height} rankings): "
          f"{time.perf_counter() - start:.1f} s")
    gem = profile_of(warehouse, "gem", complete=False)
    start = time.perf_counter()
    table = missing_scores(gem, ["borda_partial"], rates=np.linspace(0, 0.9, 20).tolist(), repetitions=100, seed=0)
    print(f"missing, GEM {gem.scores.shape[0]} voters x {gem.scores.shape[1]} systems, borda_partial, "
          f"20 rates x 100 repetitions ({table.height} rankings): {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
