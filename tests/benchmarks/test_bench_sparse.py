"""The sparse benchmark runs end to end at a small size with the shapes it promises (timings are not judged)."""

from __future__ import annotations

import json

import pytest

from benchmarks.bench_sparse import main, mteb_ballots


def test_the_mteb_shape_is_700_systems_by_1600_tasks_with_90_percent_missing():
    ballots = mteb_ballots(0)
    assert ballots.get_column("system").n_unique() == 700 and ballots.get_column("voter").n_unique() == 1600
    assert ballots.height / (700 * 1600) == pytest.approx(0.1, abs=0.005)


@pytest.mark.slow
def test_the_benchmark_completes_with_every_case_ranked(tmp_path):
    out = tmp_path / "bench.json"
    assert main(["--instances", "4", "--json", str(out), "--workdir", str(tmp_path / "work")]) == 0
    result = json.loads(out.read_text())
    steps = [row["step"] for row in result["steps"]]
    assert [s.split(" (")[0].split(",")[0] for s in steps] == [
        "floor: bare per-instance rank + per-system sum", "rank flow", "rank flow", "rank flow", "task level: MTEB-shaped"
    ]
    outcomes = result["outcomes"]
    assert "20 components" in outcomes["own systems"]["bradley_terry"]  # 20 tasks, each with its own systems
    for case in ("own systems", "mixed"):
        assert outcomes[case]["borda_partial"].startswith("ranked")
    # every system is scored on about 10 % of the tasks: coverage is measured against the best-covered one
    for method in ("mean_adjusted", "borda_partial", "bradley_terry"):
        assert outcomes["mteb"][method].startswith("ranked 700 systems"), outcomes["mteb"][method]
