"""The quarantine reasons of each file of a batch are that file's own, counted for the whole batch at once.

Three MTEB result files read in one batch: one with a NaN score, one with two, one with none (NaN is
quarantined as a non-finite score, docs/mteb-results.md).  Counts by hand from the files written here.
"""

import json
from pathlib import Path

from scorehouse.flows.ingest import ingest_flow


def result(task: str, scores: list[float]) -> str:
    subsets = [{"hf_subset": f"s{i}", "languages": ["eng-Latn"], "main_score": 0.5, "accuracy": value}
               for i, value in enumerate(scores)]
    return json.dumps({"task_name": task, "mteb_version": "1.12.0", "evaluation_time": 1.0,
                       "scores": {"test": subsets}})


def test_each_file_of_a_batch_reports_its_own_quarantine_reasons(tmp_path: Path):
    folder = tmp_path / "results" / "org__model" / "rev"
    folder.mkdir(parents=True)
    (folder / "A.json").write_text(result("A", [0.1, float("nan")]), encoding="utf-8")
    (folder / "B.json").write_text(result("B", [float("nan"), float("nan"), 0.2]), encoding="utf-8")
    (folder / "C.json").write_text(result("C", [0.3]), encoding="utf-8")
    report = ingest_flow([str(tmp_path / "results")], home=str(tmp_path / "home"))
    reasons = {Path(f.path).name: (f.status, f.quarantine_reasons) for f in report.files}
    assert reasons == {
        "A.json": ("loaded", {"non-finite score": 1}),
        "B.json": ("loaded", {"non-finite score": 2}),
        "C.json": ("loaded", {}),
    }
