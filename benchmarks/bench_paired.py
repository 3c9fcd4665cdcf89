"""Timings of the paired-evaluation code at the sizes of the issue.

Run from the repository root: ``python -m benchmarks.bench_paired``.
Targets: Bradley-Terry on 50 systems / 1M comparisons < 0.1 s once counted;
counting 1M instance-level scores < 2 s; 1000 bootstrap resamples of
Bradley-Terry at that size < 10 s; all paired tests for 20 systems x 2000
instances < 2 s.
"""

import time
from collections.abc import Callable

import numpy as np
import polars as pl

from scorehouse.aggregators import bootstrap, build_profile, paired_tests
from scorehouse.aggregators.bradley_terry import bradley_terry_counts
from scorehouse.aggregators.pairwise import pair_counts


def gumbel_ballots(n_voters: int, n_systems: int, seed: int = 0) -> pl.DataFrame:
    """Synthetic instance-level scores: system i ~ Gumbel(0.05 * i, 1) (Colombo et al., 2022)."""
    rng = np.random.default_rng(seed)
    scores = 0.05 * np.arange(n_systems) + rng.gumbel(size=(n_voters, n_systems))
    return pl.DataFrame(
        {
            "voter": np.repeat(np.arange(n_voters).astype(str), n_systems),
            "system": np.tile([f"sys{s:02d}" for s in range(n_systems)], n_voters),
            "score": scores.ravel(),
        }
    )


def timed(label: str, function: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = function()
    print(f"{label:<72} {time.perf_counter() - start:8.3f} s")
    return result


def main() -> None:
    n_systems = 50
    voters_1m_comparisons = 1_000_000 // (n_systems * (n_systems - 1) // 2) + 1  # 817 voters
    ballots = gumbel_ballots(voters_1m_comparisons, n_systems)
    profile = timed(f"profile of {voters_1m_comparisons} voters x {n_systems} systems", lambda: build_profile(ballots))
    counts = timed("pair counts (about 1M comparisons)", lambda: pair_counts(profile))
    timed("bradley_terry on the counts (prior 0.5, tol 1e-9)", lambda: bradley_terry_counts(counts))

    big = gumbel_ballots(20_000, n_systems, seed=1)
    big_profile = timed("profile of 1M instance-level scores (20000 voters x 50 systems)", lambda: build_profile(big))
    timed("pair counts of those 1M scores (24.5M comparisons)", lambda: pair_counts(big_profile))

    for resample in ("voters", "pairs"):
        timed(
            f"bootstrap bradley_terry, 1000 resamples, 1M comparisons, resample={resample!r}",
            lambda: bootstrap("bradley_terry", ballots, n_resamples=1000, resample=resample),
        )

    tests_ballots = gumbel_ballots(2000, 20, seed=2)
    timed("paired_tests, 20 systems x 2000 instances (190 pairs, 4 tests)", lambda: paired_tests(tests_ballots))


if __name__ == "__main__":
    main()
