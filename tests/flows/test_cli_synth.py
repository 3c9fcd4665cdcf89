"""``scorehouse synth`` from the command line: the files it promises, reproducibly."""

from __future__ import annotations

import json

from scorehouse.cli import main


def test_synth_writes_the_requested_size_reproducibly(tmp_path, capsys):
    args = ["synth", "--scores", "1000", "--benchmarks", "2", "--tasks", "2", "--metrics", "3", "--systems", "4",
            "--missing", "0.25", "--seed", "5"]
    assert main([*args, "--output", str(tmp_path / "a")]) == 0
    assert main([*args, "--output", str(tmp_path / "b"), "--format", "parquet"]) == 0
    spec = json.loads((tmp_path / "a" / "spec.json").read_text())
    assert spec["spec"]["instances"] == 21  # ceil(1000 / (2 * 2 * 3 * 4))
    # 2 of the 8 (system, task) cells of each benchmark are missing: 6 present x 21 instances x 3 metrics
    assert spec["n_scores"] == 2 * 6 * 21 * 3
    names = sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("t*.*"))
    assert names == [f"{fmt}/benchmark=synth-0{b}/t00{t}.{fmt}" for fmt in ("csv", "parquet") for b in (0, 1) for t in (0, 1)]
    assert not (tmp_path / "b" / "csv").exists()
    for path in (tmp_path / "a" / "parquet").rglob("*.parquet"):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()
    assert "wrote 756 scores" in capsys.readouterr().out
