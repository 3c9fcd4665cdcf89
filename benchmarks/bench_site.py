"""Size and speed of the static site (issue 28) on a generated MTEB-shaped benchmark: 700 systems x 1,000 tasks.

Run: ``.venv/bin/python -m benchmarks.bench_site [--systems 700] [--tasks 1000] [--repeat 5] [--json docs/bench-site.json]``.

The benchmark is generated (:func:`synthetic_benchmark`): scores with two decimals as leaderboards
publish them, a tenth of the cells missing, eight task types as column groups, MTEB-like metadata
(parameters, release date, languages), two methods ranked by the registry (Borda on partial rankings and Copeland, on the
ballots of the scores) with a previous snapshot each, the pairwise Hoeffding table of the ballots.
Measured: the time to build the site's files from that input, the size of the data file, and in
headless Chromium (Debian's, at /usr/bin/chromium) the time from navigation to the page being
interactive (the script sets ``data-ready`` once the table is drawn), and the time of a sort by a
task column, a search and a metadata filter, each until the browser has laid the page out again.
Prints the 1-minute load average before and after the browser runs (the machine is shared; the
times depend on it) and a Markdown table (median of ``--repeat``) against the targets: interactive in at most 2 s,
a sort or filter in at most 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.aggregators import aggregate, pairwise_confidence
from scorehouse.reports.site.build import site_files
from scorehouse.reports.site.model import BenchmarkInput, MethodInput
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.warehouse.atomic import write_tree

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
TASK_TYPES = ("Classification", "Clustering", "PairClassification", "Reranking", "Retrieval", "STS", "Summarization",
              "BitextMining")
# Names a leaderboard could hold that would run or break a page if they were inserted as HTML.
HOSTILE_NAMES = ("<script>alert(1)</script>", '<img src=x onerror="alert(2)">', "a & b \"quoted\" 'single'")
TARGETS = {"interactive_s": 2.0, "action_ms": 100.0}


def synthetic_benchmark(n_systems: int = 700, n_tasks: int = 1000, seed: int = 0) -> BenchmarkInput:
    """An MTEB-shaped benchmark: system i's true quality falls with i, every task adds noise."""
    rng = np.random.default_rng(seed)
    systems = [*HOSTILE_NAMES, *(f"org-{i % 37}/model-{i:04d}" for i in range(n_systems - len(HOSTILE_NAMES)))]
    tasks = [f"{TASK_TYPES[t % len(TASK_TYPES)]}Task{t:04d}" for t in range(n_tasks)]
    quality = np.linspace(80, 40, n_systems)
    grid = np.round(quality[None, :] + rng.normal(0, 8, (n_tasks, n_systems)), 2)
    keep = rng.random((n_tasks, n_systems)) >= 0.1
    task_index, system_index = np.nonzero(keep)
    scores = pl.DataFrame({
        "benchmark": "synthetic-mteb", "task": np.array(tasks)[task_index], "metric": "main_score",
        "instance": None, "system": np.array(systems)[system_index], "score": grid[keep], "load_id": "generated",
    }, schema_overrides={"instance": pl.String})
    metrics = pl.DataFrame({
        "benchmark": "synthetic-mteb", "task": tasks, "metric": "main_score", "higher_is_better": True,
        "is_ranked": True, "weight": 1.0, "group": [TASK_TYPES[t % len(TASK_TYPES)] for t in range(n_tasks)],
        "group_weight": 1.0,
    })
    ballots = make_ballots(scores, metrics, level="task").collect()
    methods = []
    for k, name in enumerate(("borda_partial", "copeland")):
        ranking = aggregate(name, ballots)
        shuffled = ranking.with_columns(pl.Series("rank", rng.permutation(ranking.height) + 1))  # a previous snapshot
        manifest = {"snapshot_id": f"{name}-now", "created_at": "2026-11-25 12:00:00", "n_voters": n_tasks}
        methods.append(MethodInput(f"m{k}", name, f"the {name} of the scores", manifest, ranking,
                                   history=((f"{name}-before", "2026-11-24 12:00:00", shuffled),)))
    order = tuple(methods[0].ranking.sort("rank", "system").get_column("system").to_list())
    metadata = pl.DataFrame({
        "system": systems,
        "n_parameters": (10 ** rng.uniform(7, 10, n_systems)).astype(np.int64),
        "release_date": [f"20{20 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(n_systems)],
        "languages": [["eng", "fra"] if i % 3 else ["eng"] for i in range(n_systems)],
    })
    coverage = dict(zip(systems, keep.sum(axis=0).tolist()))
    return BenchmarkInput("synthetic-mteb", "task", tuple(methods), order,
                          scores.select("task", "metric", "system", "score"), metrics, coverage, metadata,
                          pairwise_confidence(ballots), None)


def write_site(inputs: BenchmarkInput, output: Path) -> tuple[Path, float]:
    """Write the site of ``inputs``; the path and the seconds it took (files laid out and written)."""
    start = time.perf_counter()
    write_tree(site_files([inputs]), output)
    return output, time.perf_counter() - start


def benchmark_page(site: Path) -> Path:
    return next((site / "benchmarks").glob("*.html"))


# Each action runs in the page and returns the milliseconds until the page is laid out again.
ACTIONS = {
    "sort by a task column": """() => { const t = performance.now();
        document.querySelector('button.sort[data-column^="t:"]').click(); document.body.offsetHeight;
        return performance.now() - t; }""",
    "search": """() => { const t = performance.now(); const box = document.querySelector('input[type=search]');
        box.value = 'model-01'; box.dispatchEvent(new Event('input')); document.body.offsetHeight;
        return performance.now() - t; }""",
    "metadata filter": """() => { const t = performance.now(); const box = document.getElementById('f-n_parameters-min');
        box.value = '1000000000'; box.dispatchEvent(new Event('input')); document.body.offsetHeight;
        return performance.now() - t; }""",
}


def measure(site: Path, repeat: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    samples: dict[str, list[float]] = {"interactive_s": [], **{name: [] for name in ACTIONS}}
    url = benchmark_page(site).as_uri() + "#open=g0"  # one task group open: its tasks are columns to sort by
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(repeat):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            start = time.perf_counter()
            page.goto(url, wait_until="load")
            page.wait_for_selector("body[data-ready]")
            samples["interactive_s"].append(time.perf_counter() - start)
            for name, action in ACTIONS.items():
                samples[name].append(page.evaluate(action))
            page.close()
        browser.close()
    return samples


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=700, help="systems of the generated benchmark")
    parser.add_argument("--tasks", type=int, default=1000, help="tasks of the generated benchmark")
    parser.add_argument("--repeat", type=int, default=5, help="page loads measured (the median is printed)")
    parser.add_argument("--json", type=Path, help="write every sample here")
    args = parser.parse_args(argv)
    inputs = synthetic_benchmark(args.systems, args.tasks)
    with tempfile.TemporaryDirectory() as folder:
        site, build_s = write_site(inputs, Path(folder) / "site")
        data_bytes = sum(p.stat().st_size for p in (site / "data").glob("*.js") if p.name != "index.js")
        total_bytes = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        load_before = os.getloadavg()[0]
        samples = measure(site, args.repeat)
        load_after = os.getloadavg()[0]
    result = {"systems": args.systems, "tasks": args.tasks, "build_s": build_s, "data_bytes": data_bytes,
              "site_bytes": total_bytes, "load_average": [load_before, load_after], "samples": samples}
    print(f"site of {args.systems} systems x {args.tasks} tasks: built in {build_s:.2f} s; "
          f"data file {data_bytes / 1e6:.2f} MB, whole site {total_bytes / 1e6:.2f} MB; "
          f"load average {load_before:.1f} before the browser, {load_after:.1f} after")
    print("| measure | median | max | target |\n|---|---|---|---|")
    for name, values in samples.items():
        unit, target = ("s", TARGETS["interactive_s"]) if name == "interactive_s" else ("ms", TARGETS["action_ms"])
        print(f"| {name} | {statistics.median(values):.3g} {unit} | {max(values):.3g} {unit} | <= {target:g} {unit} |")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
