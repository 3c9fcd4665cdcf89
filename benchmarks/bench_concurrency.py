"""Readers beside a writer: the latency of twenty ``scorehouse sql`` readers while ``scorehouse ingest`` commits
a few million scores, beside the same readers with no writer (issue 25: readers never wait).

Run: ``.venv/bin/python -m benchmarks.bench_concurrency [--rows 3000000] [--rounds 5]``.

A home holds a small table (1,000 scores) ingested and ranked.  Baseline: twenty reader threads each
run ``scorehouse sql "SELECT count(*) AS n FROM scores"`` ``--rounds`` times, as processes, with no
writer.  Then a writer ingests a user table of ``--rows`` scores while the twenty readers query in a
loop, each once more after the writer is done; a reader that finds the catalog stale (the writer
committed) builds it aside or rebuilds it.  Prints a Markdown table of reader latency percentiles,
the writer's wall time, the number of readers that reported waiting on the lock (must be 0), the
answers that are no committed state (must be 0), and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from tests.reliability.test_concurrent_readers import COLUMNS, COUNT, READERS, finished, ingest, scorehouse, user_table


def timed_query(home: Path) -> tuple[float, int | None, bool]:
    """One reader: its wall time, its answer (None when it failed), and whether it said it waited on the lock."""
    start = time.perf_counter()
    code, out, err = finished(scorehouse(home, "sql", COUNT, "--format", "csv"))
    seconds = time.perf_counter() - start
    return seconds, int(out.splitlines()[1]) if code == 0 else None, "waiting for" in err


def readers(
    home: Path, rounds: int | None, stop: threading.Event,
) -> tuple[list[tuple[float, int | None, bool]], list[threading.Thread]]:
    """Twenty reader threads: ``rounds`` queries each, or (``rounds`` None) queries until ``stop`` and one more."""
    results: list[tuple[float, int | None, bool]] = []

    def read() -> None:
        done = 0
        while True:
            last = stop.is_set() if rounds is None else done == rounds - 1
            results.append(timed_query(home))
            done += 1
            if last:
                return

    threads = [threading.Thread(target=read, daemon=True) for _ in range(READERS)]
    for thread in threads:
        thread.start()
    return results, threads


def percentiles(seconds: list[float]) -> str:
    p50, p90, p99 = np.percentile(seconds, [50, 90, 99])
    return f"{len(seconds)} | {p50:.2f} | {p90:.2f} | {p99:.2f} | {max(seconds):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000, help="scores the writer ingests")
    parser.add_argument("--rounds", type=int, default=5, help="queries per reader in the baseline")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as folder:
        home = Path(folder) / "home"
        ingest(home, user_table(Path(folder) / "first" / "scores.csv", 1_000, seed=1))
        assert finished(scorehouse(home, "rank"))[0] == 0
        big = user_table(Path(folder) / "big" / "big.csv", args.rows, seed=3)

        baseline, threads = readers(home, args.rounds, threading.Event())
        for thread in threads:
            thread.join()

        stop = threading.Event()
        contended, threads = readers(home, None, stop)
        start = time.perf_counter()
        try:
            code, _, err = finished(scorehouse(home, "ingest", str(big), "--benchmark", "more", *COLUMNS), timeout=7200)
            assert code == 0, err
            writer = time.perf_counter() - start
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    load_after = os.getloadavg()
    states = {1_000, 1_000 + args.rows}
    print(f"writer: ingest of {args.rows:,} scores beside {READERS} readers took {writer:.1f} s")
    print(f"load average (1, 5, 15 min): before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}")
    print()
    print("| readers | queries | p50 s | p90 s | p99 s | max s | said they waited | answers of no committed state |")
    print("|---|---|---|---|---|---|---|---|")
    for label, runs in (("no writer", baseline), ("beside the writer", contended)):
        waited = sum(w for _, _, w in runs)
        wrong = sum(answer not in states for _, answer, _ in runs)
        print(f"| {label} | {percentiles([s for s, _, _ in runs])} | {waited} | {wrong} |")


if __name__ == "__main__":
    main()
