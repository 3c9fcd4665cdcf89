"""Time and peak memory of ``aggregate("borda_partial", ...)`` on ten million (voter, system) cells.

    python benchmarks/bench_borda_partial.py [--voters 500000] [--systems 20] [--missing 0.2]

Ballots are synthetic (normal scores, shuffled rows, a share of the cells
missing: half of them as null scores, half as absent rows).  Prints the time
of building the profile, of the method and of the whole ``aggregate`` call,
and the process's peak resident memory (which includes the ballots).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aggregators import aggregate, build_profile  # noqa: E402
from aggregators.borda_partial import borda_partial  # noqa: E402


def synthetic_ballots(n_voters: int, n_systems: int, missing: float, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    cells = n_voters * n_systems
    scores = rng.normal(size=cells) + np.tile(np.linspace(0, 1, n_systems), n_voters)
    gone = rng.random(cells) < missing
    keep = ~gone | (rng.random(cells) < 0.5)  # half of the missing cells have no row at all
    return (
        pl.DataFrame(
            {
                "voter": np.repeat(np.arange(n_voters), n_systems)[keep],
                "system": np.tile(np.arange(n_systems), n_voters)[keep],
                "score": np.where(gone, np.nan, scores)[keep],
            }
        )
        .with_columns(
            pl.format("v{}", pl.col("voter")),
            pl.format("s{}", pl.col("system")),
            pl.col("score").fill_nan(None),
        )
        .sample(fraction=1.0, shuffle=True, seed=seed)
    )


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voters", type=int, default=500_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--missing", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ballots = synthetic_ballots(args.voters, args.systems, args.missing, args.seed)
    print(f"ballots: {ballots.height:,} rows, {args.voters:,} voters x {args.systems} systems, "
          f"{args.missing:.0%} missing; peak RSS so far {peak_rss_gb():.2f} GB")
    start = time.perf_counter()
    profile = build_profile(ballots)
    built = time.perf_counter()
    borda_partial(profile)
    scored = time.perf_counter()
    print(f"build_profile {built - start:.2f} s, borda_partial {scored - built:.2f} s")
    del profile
    start = time.perf_counter()
    ranking = aggregate("borda_partial", ballots)
    print(f"aggregate('borda_partial') {time.perf_counter() - start:.2f} s; top: {ranking['system'][0]}")
    print(f"peak RSS {peak_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
