"""The battles benchmark runs end to end at a small size and agrees with evalica (timings are not judged)."""

from __future__ import annotations

import json

from benchmarks.bench_battles import TARGETS, main


def test_the_benchmark_completes_and_matches_evalica(tmp_path):
    out = tmp_path / "bench.json"
    assert main(["--battles", "3000", "--systems", "8", "--evalica-resamples", "2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    steps = {row["step"]: row for row in result["steps"]}
    assert set(TARGETS) <= set(steps)
    assert "evalica bootstrap: 1,000 resamples (scaled)" in steps
    assert result["max_log_strength_difference_vs_evalica"] < 1e-6
    assert result["max_elo_difference_vs_evalica"] < 1e-6
