"""The scale benchmark runs end to end at a small size and its numbers are sane (timings are not judged)."""

from __future__ import annotations

import json

import pytest

from benchmarks.bench_scale import main

STEPS = (
    "floor: bare Parquet scan",
    "floor: bare per-instance rank + per-system sum",
    "ingest from Parquet dumps",
    "ingest from CSV dumps",
    "instance rank tables",
    "borda one-level + two-level + mean of means",
    "borda_partial, 20% (system, task) cells missing",
    "pairwise counts + bradley_terry",
    "rank flow (scorehouse rank --level instance)",
    "full run: ingest (Parquet) + rank flow",
)


@pytest.mark.slow
def test_the_benchmark_completes_with_sane_numbers(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["--scores", "300000", "--benchmarks", "2", "--tasks", "4", "--json", str(out),
                 "--workdir", str(tmp_path / "work")]) == 0
    result = json.loads(out.read_text())
    assert 300_000 <= result["scores"] < 300_000 + 2 * 4 * 17 * 15  # rounded up to whole instances
    steps = {row["step"]: row for row in result["steps"]}
    assert set(STEPS) <= set(steps)
    for row in steps.values():
        assert row["wall_s"] > 0 and row["cpu_s"] >= 0 and 0 < row["peak_rss_gb"] < 24
        assert row["ratio_to_floor"] is None or row["ratio_to_floor"] > 0
    full = steps["full run: ingest (Parquet) + rank flow"]
    parts = steps["ingest from Parquet dumps"]["wall_s"] + steps["rank flow (scorehouse rank --level instance)"]["wall_s"]
    assert full["wall_s"] == pytest.approx(parts)
    assert len(result["kendall_tau"]) >= 9 and all(tau > 0.9 for tau in result["kendall_tau"].values())
    assert not (tmp_path / "work").exists()  # the generated data are removed
    printed = capsys.readouterr().out
    assert "Kendall tau to the true ranking" in printed and "x floor" in printed
