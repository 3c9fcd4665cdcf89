"""``scorehouse synth`` dumps, the instance-level Parquet format and typed values in validation.

References: the Gumbel distribution's mean (phi * n + Euler's gamma) and
standard deviation (pi / sqrt(6)); Python's csv module for the CSV copy; the
generating frame itself for the Parquet copy (what was written must be read).
"""

from __future__ import annotations

import csv
import math

import numpy as np
import polars as pl
import pytest

from scorehouse.flows.synth import write_synthetic
from scorehouse.transforms.parsers import parse_file
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.synth import SynthSpec, instances_for, plan, task_frame
from scorehouse.transforms.validate import validate_rows

EULER_GAMMA = 0.5772156649015329


def long_means(frame: pl.DataFrame) -> np.ndarray:
    metrics = [c for c in frame.columns if c.startswith("m")]
    return frame.group_by("System").agg(pl.mean_horizontal(metrics).mean().alias("mean")).sort("System").get_column("mean").to_numpy()


def test_scores_follow_the_gumbel_model_of_what_are_the_best_systems():
    spec = SynthSpec(tasks=1, metrics=4, instances=20_000, systems=5, phi=0.7, seed=1)
    frame = task_frame(spec, plan(spec).row(0, named=True))
    np.testing.assert_allclose(long_means(frame), 0.7 * np.arange(5) + EULER_GAMMA, atol=0.02)
    spread = frame.filter(pl.col("System") == "S002").get_column("m01").std()
    assert spread == pytest.approx(math.pi / math.sqrt(6), rel=0.02)


def test_corrupted_tasks_are_reversed_and_the_rescaled_task_is_scaled():
    spec = SynthSpec(tasks=4, metrics=2, instances=5000, systems=4, phi=1.0, corrupted_fraction=0.5, rescale=10.0, seed=2)
    tasks = plan(spec)
    assert tasks.get_column("corrupted").sum() == 2 and (tasks.get_column("scale") == 10.0).sum() == 1
    for task in tasks.iter_rows(named=True):
        means = long_means(task_frame(spec, task))
        sign = -1.0 if task["corrupted"] else 1.0
        np.testing.assert_allclose(means, task["scale"] * (sign * np.arange(4) + EULER_GAMMA), atol=0.05 * task["scale"])


def test_missing_cells_keep_every_task_and_system_rankable():
    spec = SynthSpec(tasks=6, systems=5, metrics=1, instances=3, missing_fraction=0.5, seed=3)
    tasks = plan(spec)
    sizes = tasks.get_column("systems").list.len()
    assert sizes.min() >= 2 and 6 * 5 - sizes.sum() == round(0.5 * 6 * 5)
    assert set(tasks.get_column("systems").explode().to_list()) == {f"S00{i}" for i in range(5)}


def test_each_task_is_drawn_from_its_own_seed():
    small, large = SynthSpec(tasks=2, instances=7, metrics=3, seed=9), SynthSpec(tasks=5, instances=7, metrics=3, seed=9)
    assert task_frame(small, plan(small).row(1, named=True)).equals(task_frame(large, plan(large).row(1, named=True)))
    assert not task_frame(small, plan(small).row(0, named=True)).equals(task_frame(small, plan(small).row(1, named=True)))


def test_instances_for_reaches_the_requested_size():
    assert instances_for(1000, benchmarks=1, tasks=2, metrics=3, systems=4) == 42  # ceil(1000 / 24)
    assert SynthSpec(tasks=2, metrics=3, systems=4, instances=42).n_scores >= 1000


def test_csv_and_parquet_copies_parse_to_the_same_scores(tmp_path):
    spec = SynthSpec(benchmarks=1, tasks=2, metrics=3, instances=10, systems=4, missing_fraction=0.25, seed=4)
    summary = write_synthetic(spec, tmp_path)
    csv_file = tmp_path / "csv" / "benchmark=synth-00" / "t001.csv"
    parquet_file = tmp_path / "parquet" / "benchmark=synth-00" / "t001.parquet"
    fmt_csv, from_csv = parse_file(csv_file)
    fmt_parquet, from_parquet = parse_file(parquet_file)
    assert (fmt_csv.name, fmt_parquet.name) == ("instance-long", "instance-parquet")
    assert from_parquet.rows.schema["value"] == pl.Float64 and from_parquet.rows.get_column("line").null_count() == from_parquet.rows.height
    with open(csv_file, newline="") as handle:
        reference = {(r["System"], r["Utterance"], m, float(v)) for r in csv.DictReader(handle) for m, v in r.items()
                     if m not in ("System", "Utterance")}
    for parsed in (from_csv, from_parquet):
        rows = parsed.rows.select("benchmark", "task").unique().rows()
        assert rows == [("synth-00", "t001")]
        got = {(s, i, m, float(v)) for s, i, m, v in parsed.rows.select("system", "instance", "metric", "value").iter_rows()}
        assert got == reference
    assert summary["n_scores"] == sum(
        parse_file(f)[1].rows.height for f in (tmp_path / "parquet").rglob("*.parquet")
    )


def test_a_parquet_score_column_that_is_not_numeric_is_refused(tmp_path):
    path = tmp_path / "benchmark=x" / "t.parquet"
    path.parent.mkdir()
    pl.DataFrame({"System": ["a"], "Utterance": [0], "bleu": ["high"]}).write_parquet(path)
    with pytest.raises(ParseError, match=r"score column\(s\) \['bleu'\] are not numeric"):
        parse_file(path)


def test_typed_values_are_validated_like_text():
    rows = pl.DataFrame(
        {
            "benchmark": ["b"] * 4, "task": ["t"] * 4, "metric": ["m"] * 4, "instance": ["0", "0", "1", "2"],
            "system": ["s", "s", "s", "s"], "value": [1.5, 1.5, float("inf"), None], "line": [None] * 4,
        },
        schema_overrides={"line": pl.Int64},
    )
    checked = validate_rows(rows, file="f.parquet", load_id="L")
    assert checked.scores.select("instance", "score").rows() == [("0", 1.5), ("2", None)]
    assert sorted(checked.quarantine.get_column("reason").to_list()) == ["exact duplicate of row 1", "non-finite score inf"]
    assert checked.quarantine.schema["value"] == pl.String


def test_metric_headers_that_look_like_wildcards_are_names(tmp_path):
    path = tmp_path / "benchmark=x" / "t.csv"
    path.parent.mkdir()
    path.write_text("System,Utterance,*,^b$\na,0,1.5,2\n")
    _, parsed = parse_file(path)
    assert sorted(parsed.rows.select("metric", "value").rows()) == [("*", "1.5"), ("^b$", "2")]
