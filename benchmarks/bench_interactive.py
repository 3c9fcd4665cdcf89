"""Interactive speed of the CLI: wall time of whole ``scorehouse`` processes against a floor measured in the same run.

Run: ``.venv/bin/python -m benchmarks.bench_interactive [--repeat 5] [--json docs/bench-interactive.json]
[--prefect]``.

The floor is a fresh interpreter that imports Polars and DuckDB (``python -c "import polars,
duckdb"``): what any command of a tool built on them pays before its own work.  Each target is
the floor plus a fixed allowance.  Every command runs as a user runs it, in a warehouse of a
temporary folder with no Prefect API configured; the first ``ingest`` is the first command of
that warehouse.  After each command the benchmark checks with ``ps`` that no process of the
warehouse is left.  ``--prefect`` also starts a real ``prefect server start`` and times commands
recorded by it (target: floor + 3 s).  Prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.runtime.conftest import free_port, wait_for_health

REPO = Path(__file__).resolve().parent.parent
GLUE = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv"
FLOOR = [sys.executable, "-c", "import polars, duckdb"]

# (label, arguments, allowance over the floor in seconds); the first runs once, on an empty warehouse
FIRST = ("ingest GLUE (first command, fresh warehouse)", ["ingest", str(GLUE)], 1.0)
COMMANDS = [
    ("rank --benchmark glue --method borda", ["rank", "--benchmark", "glue", "--method", "borda"], 1.0),
    ("rank --benchmark glue (default methods)", ["rank", "--benchmark", "glue"], 1.5),
    ('sql "SELECT 1"', ["sql", "SELECT 1"], 0.3),
    ("snapshots", ["snapshots"], 0.3),
    ("diff --latest", ["diff", "--latest"], 0.3),
    ("export --latest --format csv", ["export", "--latest", "--format", "csv", "--output", "{tmp}/out.csv"], 0.3),
]
RECORDED = [
    ("recorded: ingest GLUE", ["ingest", str(GLUE)], 3.0),
    ("recorded: rank --benchmark glue --method borda", ["rank", "--benchmark", "glue", "--method", "borda"], 3.0),
]


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    return seconds


def left_behind(folder: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if folder in line and int(line.split()[0]) != os.getpid()]


def scorehouse(home: str, args: list[str]) -> list[str]:
    return [sys.executable, "-m", "scorehouse", "--home", home, *args]


def measure(rows: list, label: str, command: list[str], env: dict, floor: float, allowance: float, times: int,
            folder: str) -> None:
    samples = [timed(command, env) for _ in range(times)]
    left = left_behind(folder)
    if left:
        raise RuntimeError(f"{label} left processes running: {left}")
    rows.append((label, samples, floor + allowance, allowance))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the samples, medians and load averages here")
    parser.add_argument("--prefect", action="store_true", help="also time commands recorded by a real Prefect server")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    load_before = os.getloadavg()
    rows: list = []
    with tempfile.TemporaryDirectory() as tmp:
        env["PREFECT_HOME"] = f"{tmp}/prefect-home"  # no profile names an API
        floor = statistics.median(timed(FLOOR, env) for _ in range(options.repeat))
        home = f"{tmp}/wh"
        label, args, allowance = FIRST
        measure(rows, label, scorehouse(home, args), env, floor, allowance, 1, tmp)
        timed(scorehouse(home, ["rank", "--benchmark", "glue", "--method", "mean"]), env)  # a snapshot for diff and export
        for label, args, allowance in COMMANDS:
            command = scorehouse(home, [a.format(tmp=tmp) for a in args])
            measure(rows, label, command, env, floor, allowance, options.repeat, tmp)
        if options.prefect:
            recorded(rows, env, floor, options.repeat, tmp)
    print(f"Floor (`python -c \"import polars, duckdb\"`, median of {options.repeat}): {floor:.2f} s; "
          f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores.\n")
    print("| command | seconds (median) | target (floor + allowance) | met |\n|---|---:|---:|---|")
    for label, samples, target, allowance in rows:
        seconds = statistics.median(samples)
        print(f"| {label} | {seconds:.2f} | {target:.2f} (+{allowance:g}) | {'yes' if seconds <= target else 'no'} |")
    if options.json:
        options.json.write_text(json.dumps({
            "repeat": options.repeat, "cpus": os.cpu_count(), "floor_seconds": round(floor, 3),
            "load_average_1_5_15_min": {"before": load_before, "after": os.getloadavg()},
            "rows": [{"command": label, "median_seconds": round(statistics.median(samples), 3),
                      "samples": [round(s, 3) for s in samples], "target_seconds": round(target, 3),
                      "met": statistics.median(samples) <= target} for label, samples, target, _ in rows],
        }, indent=1) + "\n")


def recorded(rows: list, env: dict, floor: float, repeat: int, tmp: str) -> None:
    """Commands recorded by a real ``prefect server start`` (started here, stopped after)."""
    port = free_port()
    server_env = {**env, "PREFECT_HOME": f"{tmp}/prefect-server", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    log = Path(tmp) / "prefect-server.log"
    with log.open("wb") as out:
        server = subprocess.Popen([str(Path(sys.executable).parent / "prefect"), "server", "start", "--host",
                                   "127.0.0.1", "--port", str(port)], env=server_env, stdout=out, stderr=out,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_for_health(url, server, log)
        home = f"{tmp}/recorded"
        for label, args, allowance in RECORDED:
            samples = [timed(scorehouse(home, args), {**env, "PREFECT_API_URL": url}) for _ in range(repeat)]
            rows.append((label, samples, floor + allowance, allowance))
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(f"{tmp}/prefect-server", ignore_errors=True)


if __name__ == "__main__":
    main()
