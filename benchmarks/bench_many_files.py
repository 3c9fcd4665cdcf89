"""Many small files (issue 13, item 5; issue 14, item 2): ingest a synthetic MTEB results tree, then again.

Run: ``.venv/bin/python -m benchmarks.bench_many_files [--files 100000] [--json docs/bench-many-files.json]
[--bundled]``.  Writes ``results/<org>__<model>/<revision>/<Task>.json`` files in both
result-file formats of :mod:`transforms.parsers.mteb` (current: ``scores`` by split with
``hf_subset`` entries; early: ``mteb_dataset_name`` and split objects, some with subsets),
plus one ``model_meta.json`` per model, into a temporary folder; ingests it through the
real CLI (``scorehouse ingest``) into a fresh home, and again with nothing new.  Each
run's wall time and peak resident memory of the CLI's process tree (sampled every
0.2 s) are printed and written
as JSON.  ``--bundled`` also times the ingest of the bundled dumps (``make run``'s first
step) into a fresh home, first and second run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "data" / "bundled"
TARGETS = {"first": 300.0, "rerun": 30.0, "peak_mb": 2048.0}
TASKS_PER_MODEL = 250
METRICS = ("accuracy", "f1", "f1_weighted", "precision", "recall", "ap", "ndcg_at_10", "map_at_10", "mrr_at_10")


def current_result(rng: random.Random, task: str, subsets: list[str]) -> dict:
    entries = [
        {"hf_subset": s, "languages": ["eng-Latn"], "main_score": round(rng.random(), 5),
         **{m: round(rng.random(), 5) for m in rng.sample(METRICS, 5)}}
        for s in subsets
    ]
    return {"dataset_revision": "%040x" % rng.getrandbits(160), "task_name": task, "mteb_version": "1.12.75",
            "scores": {"test": entries}, "evaluation_time": round(rng.random() * 100, 3), "kg_co2_emissions": None}


def early_result(rng: random.Random, task: str, subsets: list[str]) -> dict:
    def fields() -> dict:
        return {"main_score": round(rng.random(), 5), **{m: round(rng.random(), 5) for m in rng.sample(METRICS, 5)}}

    split = {s: fields() for s in subsets} if len(subsets) > 1 else fields()
    return {"mteb_dataset_name": task, "mteb_version": "1.1.1", "dataset_revision": None,
            "test": {**split, "evaluation_time": round(rng.random() * 100, 3)}}


def write_tree(root: Path, files: int, seed: int = 0) -> int:
    """Write ``files`` result files (and a model_meta.json per model) under ``root/results``; return the file count."""
    rng = random.Random(seed)
    models = -(-files // TASKS_PER_MODEL)
    written = 0
    for m in range(models):
        folder = root / "results" / f"org{m % 37}__model-{m}" / ("%040x" % rng.getrandbits(160))
        folder.mkdir(parents=True)
        (folder / "model_meta.json").write_text(json.dumps({"name": f"org{m % 37}/model-{m}", "revision": folder.name,
                                                           "n_parameters": rng.randrange(10**6, 10**10)}))
        written += 1
        for t in range(min(TASKS_PER_MODEL, files - m * TASKS_PER_MODEL)):
            task = f"Task{t:04d}"
            subsets = ["default"] if t % 5 else ["en", "de", "fr"]
            make = early_result if (m + t) % 3 == 0 else current_result
            (folder / f"{task}.json").write_text(json.dumps(make(rng, task, subsets), indent=2))
            written += 1
    return written


def measured(args: list[str], env: dict[str, str]) -> dict:
    """:func:`measured_process` of ``scorehouse *args``."""
    return measured_process([sys.executable, "-m", "scorehouse.cli", *args], env)


def measured_process(argv: list[str], env: dict[str, str]) -> dict:
    """Wall seconds, CPU seconds (user + system, of every process of the tree once waited for), peak RSS (MB) of
    the process tree, and exit code of the command ``argv`` run from the repository."""
    start = time.perf_counter()
    log = tempfile.TemporaryFile()  # not a pipe: the CLI writes a line per file, more than a pipe holds
    process = psutil.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log)
    peak = 0
    while (ended := os.wait4(process.pid, os.WNOHANG))[0] == 0:
        try:
            tree = [process, *process.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass  # a child ended between the listing and the read
        time.sleep(0.2)
    _, status, usage = ended  # the command's own rusage, its waited children included
    process.returncode = os.waitstatus_to_exitcode(status)
    log.seek(0)
    stderr = log.read().decode(errors="replace")
    if process.returncode > 1:
        raise RuntimeError(f"{' '.join(argv)} failed ({process.returncode}): {stderr[-2000:]}")
    # the sampled sum of the tree misses a peak shorter than the sampling; the kernel's high-water mark of the
    # largest process does not (ru_maxrss, in KB)
    peak = max(peak, usage.ru_maxrss * 1024)
    return {"seconds": round(time.perf_counter() - start, 1), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_mb": round(peak / 2**20), "exit": process.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--bundled", action="store_true", help="also time the ingest of the bundled dumps")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PREFECT_HOME": f"{tmp}/prefect", "PREFECT_LOGGING_LEVEL": "WARNING",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
        env.pop("PREFECT_API_URL", None)
        start = time.perf_counter()
        count = write_tree(Path(tmp) / "tree", options.files)
        result = {"files": count, "generate_seconds": round(time.perf_counter() - start, 1),
                  "load_average_before": [round(x, 1) for x in os.getloadavg()], "cores": os.cpu_count()}
        home = ["--home", f"{tmp}/wh"]
        result["first"] = measured(["ingest", *home, f"{tmp}/tree"], env)
        result["rerun"] = measured(["ingest", *home, f"{tmp}/tree"], env)
        if options.bundled:
            bundled = ["ingest", "--home", f"{tmp}/bundled", str(BUNDLED)]
            result["bundled_first"] = measured(bundled, env)
            result["bundled_rerun"] = measured(bundled, env)
        result["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    result["targets"] = TARGETS
    result["met"] = {"first": result["first"]["seconds"] <= TARGETS["first"],
                     "rerun": result["rerun"]["seconds"] <= TARGETS["rerun"],
                     "peak_mb": max(result["first"]["peak_mb"], result["rerun"]["peak_mb"]) <= TARGETS["peak_mb"]}
    print(json.dumps(result, indent=1))
    if options.json:
        options.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
