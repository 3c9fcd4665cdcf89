"""The systems view on the bundled MTEB sample: model metadata loaded with lineage, joined to the scores."""

import json
import shutil

from scorehouse.cli import main
from tests.flows.conftest import REPO

SAMPLE = REPO / "data" / "bundled" / "mteb-results-sample" / "results"
MODELS = ("sentence-transformers__all-mpnet-base-v2", "BAAI__bge-m3")


def query(home: str, sql: str, tmp_path) -> list[dict]:
    out = tmp_path / "q.json"
    assert main(["--home", home, "sql", sql, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def test_systems_view_of_the_bundled_mteb_sample(tmp_path, capsys):
    results = tmp_path / "results"
    for model in MODELS:
        shutil.copytree(SAMPLE / model, results / model)
    home = str(tmp_path / "wh")
    assert main(["ingest", str(results), "--home", home]) == 0
    out = capsys.readouterr().out
    # 4 model_meta.json files (find -name model_meta.json): bge-m3's one, all-mpnet-base-v2's three; two are superseded.
    assert out.count("superseded metadata of this model") == 2 and "holds no scores" not in out
    systems = query(home, "SELECT system, revision, n_parameters, release_date, license, languages FROM systems "
                          "WHERE benchmark = 'mteb' ORDER BY system", tmp_path)
    # The values as the chosen model_meta.json files publish them.
    assert systems == [
        {"system": "BAAI/bge-m3", "revision": "5617a9f61b028005a4858fdac845db406aefb181", "n_parameters": 568000000,
         "release_date": "2024-06-28", "license": "mit",
         "languages": json.loads((SAMPLE / MODELS[1] / "5617a9f61b028005a4858fdac845db406aefb181" / "model_meta.json")
                                 .read_text())["languages"]},
        {"system": "sentence-transformers/all-mpnet-base-v2", "revision": "9a3225965996d404b775526de6dbfe85d3368642",
         "n_parameters": 109486464, "release_date": "2021-08-30", "license": "apache-2.0", "languages": ["eng-Latn"]},
    ]
    # Every system with metadata joins to its scores by name.
    joined = query(home, "SELECT DISTINCT system FROM systems JOIN scores USING (benchmark, system) ORDER BY system", tmp_path)
    assert [r["system"] for r in joined] == ["BAAI/bge-m3", "sentence-transformers/all-mpnet-base-v2"]
    # Lineage: each metadata file is a load of its own, archived, with no score rows.
    loads = query(home, "SELECT l.file_name, l.rows_in, s.load_id IS NOT NULL AS described FROM loads AS l "
                        "LEFT JOIN systems AS s USING (load_id) WHERE l.format = 'mteb-model-meta' ORDER BY file_name", tmp_path)
    assert loads == [
        {"file_name": str(results / MODELS[1] / "5617a9f61b028005a4858fdac845db406aefb181" / "model_meta.json"),
         "rows_in": 0, "described": True},
        {"file_name": str(results / MODELS[0] / "9a3225965996d404b775526de6dbfe85d3368642" / "model_meta.json"),
         "rows_in": 0, "described": True},
    ]
    assert main(["ingest", str(results), "--home", home]) == 0  # again: nothing new
    assert len(query(home, "SELECT * FROM loads WHERE format = 'mteb-model-meta'", tmp_path)) == 2
