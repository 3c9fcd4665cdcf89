"""Ingest of MTEB result files of every format version (the fixtures of ``tests/transforms/fixtures/mteb-formats``).

Through the ingest flow into a real warehouse: every result lands as its own load from one batch, the
experiment run is skipped, the non-finite scores of a real file are quarantined, and a second ingest
finds every file unchanged.
"""

import shutil
from pathlib import Path

import polars as pl

from scorehouse.flows.ingest import ingest_flow
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.storage import Warehouse

FIXTURES = Path(__file__).parents[1] / "transforms" / "fixtures" / "mteb-formats" / "results"


def test_every_format_version_ingests_in_one_batch_and_again_unchanged(tmp_path: Path):
    folder = tmp_path / "results"
    # run_settings.jsonl is left out: telling it apart is format detection's (transforms/parsers/__init__.py)
    shutil.copytree(FIXTURES, folder, ignore=shutil.ignore_patterns("run_settings.jsonl"))
    home = tmp_path / "home"
    report = ingest_flow([str(folder)], home=str(home))
    status = {Path(f.path).name: f.status for f in report.files}
    results = [p for p in folder.rglob("*.json") if "experiments" not in p.parts and p.name != "model_meta.json"]
    assert len(results) == 13 and all(status[p.name] == "loaded" for p in results)
    assert status["LegalQuAD.json"] == "skipped" and status["model_meta.json"] == "loaded"
    assert report.ok
    with connect(Warehouse(home)) as con:
        loads = query_frame(con, "SELECT count(DISTINCT batch_id) AS batches, sum(rows_in) AS rows_in, "
                                 "sum(rows_landed + rows_quarantined) AS rows_out FROM loads WHERE format = 'mteb-results'")
        headlines = query_frame(con, "SELECT task, system, score FROM scores WHERE metric = 'main_score' AND task = 'BUCC.v2'")
        nan = query_frame(con, "SELECT count(*) AS n FROM quarantine WHERE reason LIKE 'non-finite score%' AND task = 'JQaRAReranking'")
    assert loads.row(0) == (1, loads["rows_in"][0], loads["rows_in"][0])
    # BUCC.v2's four subsets' main_scores 0.994711, 0.990462, 0.975061, 0.991575 (read off the file)
    assert headlines.rows() == [("BUCC.v2", "microsoft/harrier-oss-v1-0.6b", (0.994711 + 0.990462 + 0.975061 + 0.991575) / 4)]
    assert nan["n"][0] > 0
    again = ingest_flow([str(folder)], home=str(home))
    assert {f.status for f in again.files if Path(f.path).name != "LegalQuAD.json"} == {"unchanged"}

    # The rank's read holds the ranked voters only: the whole read, kept to the catalog's ranked keys by hand
    everything, metrics = benchmark_scores(Warehouse(home), "mteb", "task")
    ranked, ranked_metrics = benchmark_scores(Warehouse(home), "mteb", "task", ranked_only=True)
    keys = metrics.filter("is_ranked").select("task", "metric")
    expected = everything.join(keys, on=["task", "metric"], how="semi")
    assert 0 < ranked.height == expected.height < everything.height / 20
    assert ranked.sort(pl.all()).equals(expected.sort(pl.all()))
    assert ranked_metrics.sort(pl.all()).equals(metrics.filter("is_ranked").sort(pl.all()))
    assert set(ranked.get_column("metric").to_list()) == {"main_score"}
