"""The metric keys of the current scores (the catalog's input), read from the coverage files by one DuckDB query.

Expected keys come from the score Parquet files themselves (one load: all of them are current), and after a
corrected file renames its task, from that list with the task renamed: the superseded load's keys are gone.
"""

import json
from pathlib import Path

import polars as pl

from scorehouse.flows.ingest import ingest_flow
from scorehouse.warehouse.catalog import current_metric_keys
from scorehouse.warehouse.storage import Warehouse


def mteb_result(task: str) -> str:
    subsets = [{"hf_subset": name, "languages": ["eng-Latn"], "main_score": 0.5, "accuracy": 0.25}
               for name in ("en", "de")]
    return json.dumps({"task_name": task, "mteb_version": "1.12.0", "scores": {"test": subsets}})


def test_the_metric_keys_are_those_of_the_current_loads_only(home: Path, tmp_path: Path):
    dump = tmp_path / "results" / "org__model" / "rev" / "Task.json"
    dump.parent.mkdir(parents=True)
    dump.write_text(mteb_result("MRPC"), encoding="utf-8")
    ingest_flow([str(dump)], home=str(home))
    stored = pl.read_parquet(sorted(home.glob("scores/benchmark=*/level=*/*.parquet")), hive_partitioning=True)
    expected = sorted(stored.select("benchmark", "task", "metric").unique().rows())
    assert ("mteb", "MRPC", "main_score") in expected and ("mteb", "MRPC/de", "accuracy") in expected
    assert current_metric_keys(Warehouse(home)).rows() == expected

    dump.write_text(mteb_result("MRPX"), encoding="utf-8")  # the same file corrected: another task name
    ingest_flow([str(dump)], home=str(home))
    renamed = sorted((b, t.replace("MRPC", "MRPX"), m) for b, t, m in expected)
    assert current_metric_keys(Warehouse(home)).rows() == renamed


def test_a_home_without_loads_has_no_metric_keys(home: Path):
    keys = current_metric_keys(Warehouse(home))
    assert keys.height == 0 and keys.columns == ["benchmark", "task", "metric"]
