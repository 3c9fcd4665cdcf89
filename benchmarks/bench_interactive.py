"""Interactive speed of the CLI (issue 14): wall time of whole ``scorehouse`` processes, cold and warm.

Run: ``.venv/bin/python -m benchmarks.bench_interactive [--repeat 3] [--json docs/bench-interactive.json]``.  A fresh
warehouse and Prefect home in a temporary folder; "cold" is the first command
(it starts the home's Prefect server and then its warm worker), "warm" every later one (the server
and the worker run).  Prints a Markdown table (median of ``--repeat`` runs) with each
target (and with ``--json`` writes every sample and the machine's load
averages), and stops the server it started.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GLUE = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv"

# (label, arguments, target in seconds)
WARM = [
    ("--help", ["--help"], 0.5),
    ('sql "SELECT 1"', ["sql", "SELECT 1"], 0.5),
    ("re-ingest a known file", ["ingest", str(GLUE)], 1.5),
    ("rank --benchmark glue (default methods)", ["rank", "--benchmark", "glue"], 3.0),
    ("rank --benchmark glue --method borda", ["rank", "--benchmark", "glue", "--method", "borda"], 2.0),
    ("snapshots", ["snapshots"], 1.5),
    ("diff --latest", ["diff", "--latest"], 1.5),
    ("export --latest --format csv", ["export", "--latest", "--format", "csv", "--output", "{tmp}/out.csv"], 1.5),
]
COLD_TARGET = 20.0


def timed(env: dict[str, str], args: list[str]) -> float:
    """Seconds of one whole process; exit code 1 (GLUE has quarantined rows) is an outcome, 2 or more an error."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "scorehouse.cli", *args], cwd=REPO, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode > 1:
        raise RuntimeError(f"scorehouse {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the samples, medians and load averages here")
    options = parser.parse_args()
    repeat = options.repeat
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SCOREHOUSE_HOME": f"{tmp}/wh", "PREFECT_HOME": f"{tmp}/prefect",
               "SCOREHOUSE_PREFECT": "server", "PREFECT_LOGGING_LEVEL": "WARNING",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
        env.pop("PREFECT_API_URL", None)
        try:
            rows = [("cold: first command (ingest GLUE, starts the server)", [timed(env, ["ingest", str(GLUE)])], COLD_TARGET)]
            timed(env, ["rank", "--benchmark", "glue", "--method", "mean"])  # a previous snapshot for diff --latest
            for label, args, target in WARM:
                args = [a.format(tmp=tmp) for a in args]
                rows.append((f"warm: {label}", [timed(env, args) for _ in range(repeat)], target))
        finally:
            timed(env, ["server", "stop"])
    print(f"| command | seconds (median of {repeat}) | target | met |\n|---|---:|---:|---|")
    for label, samples, target in rows:
        seconds = statistics.median(samples)
        print(f"| {label} | {seconds:.2f} | {target:g} | {'yes' if seconds <= target else 'no'} |")
    if options.json:
        options.json.write_text(json.dumps({
            "repeat": repeat, "cpus": os.cpu_count(),
            "load_average_1_5_15_min": {"before": load_before, "after": os.getloadavg()},
            "rows": [{"command": label, "median_seconds": round(statistics.median(samples), 3),
                      "samples": [round(s, 3) for s in samples], "target_seconds": target,
                      "met": statistics.median(samples) <= target} for label, samples, target in rows],
        }, indent=1) + "\n")


if __name__ == "__main__":
    main()
