"""MTEB result files, on files written here from the format descriptions and on the bundled sample.

Expected values are worked out by hand next to each fixture, not with the parser.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.transforms.conftest import BUNDLED
from scorehouse.transforms.parsers import parse_file
from scorehouse.transforms.parsers.base import NotScoresError

MODEL = "org__model-x"


def write(root: Path, revision: str, task: str, doc: dict) -> Path:
    path = root / "results" / MODEL / revision / f"{task}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def cells(path: Path) -> dict[tuple[str, str], float | None]:
    rows = parse_file(path)[1].rows
    assert rows.get_column("system").unique().to_list() == ["org/model-x"]
    return {(r["task"], r["metric"]): r["value"] for r in rows.iter_rows(named=True)}


CURRENT = {
    "task_name": "STS17", "mteb_version": "1.12.75", "evaluation_time": 12.5,
    "scores": {
        "test": [
            {"hf_subset": "en-en", "languages": ["eng-Latn"], "main_score": 0.8, "cosine_spearman": 0.8,
             "cosine": {"pearson": 0.7}, "scores_per_experiment": [0.1, 0.2]},
            {"hf_subset": "en-de", "languages": ["eng-Latn", "deu-Latn"], "main_score": 0.5, "cosine_spearman": 0.5},
        ],
        "validation": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.9}],
    },
}


def test_current_format_headline_subsets_and_nested_values(tmp_path: Path):
    got = cells(write(tmp_path, "abc123", "STS17", CURRENT))
    assert got == {
        ("STS17", "evaluation_time"): 12.5,
        ("STS17", "main_score"): (0.8 + 0.5) / 2,  # the mean over the test split's two subsets
        ("STS17/en-en", "main_score"): 0.8, ("STS17/en-en", "cosine_spearman"): 0.8,
        ("STS17/en-en", "cosine.pearson"): 0.7,
        ("STS17/en-en", "scores_per_experiment[0]"): 0.1, ("STS17/en-en", "scores_per_experiment[1]"): 0.2,
        ("STS17/en-de", "main_score"): 0.5, ("STS17/en-de", "cosine_spearman"): 0.5,
        ("STS17@validation", "main_score"): 0.9,
    }


def test_early_formats_flat_and_with_subsets(tmp_path: Path):
    flat = {"mteb_dataset_name": "Banking77", "mteb_version": "1.0.2", "dataset_revision": "r",
            "test": {"accuracy": 0.6, "f1": 0.5, "main_score": 0.6, "evaluation_time": 3.0}}
    assert cells(write(tmp_path, "no_revision_available", "Banking77", flat)) == {
        ("Banking77", "accuracy"): 0.6, ("Banking77", "f1"): 0.5, ("Banking77", "evaluation_time"): 3.0,
        ("Banking77", "main_score"): 0.6,
    }
    nested = {"mteb_dataset_name": "Tatoeba", "mteb_version": "1.1.2.dev0",
              "test": {"evaluation_time": 9.0, "fr-en": {"f1": 0.2}, "de-en": {"f1": 0.4}}}
    parsed = parse_file(write(tmp_path, "no_revision_available", "Tatoeba", nested))[1]
    got = {(r["task"], r["metric"]): r["value"] for r in parsed.rows.iter_rows(named=True)}
    # No main_score (mteb 1.0): no ranked headline, and the file says so.
    assert got == {("Tatoeba", "evaluation_time"): 9.0, ("Tatoeba/fr-en", "f1"): 0.2, ("Tatoeba/de-en", "f1"): 0.4}
    assert any("no main_score" in p for p in parsed.problems)


def test_one_result_per_model_and_task_across_revisions_and_formats(tmp_path: Path):
    early = {"mteb_dataset_name": "STS17", "mteb_version": "1.1.0",
             "test": {"en-en": {"main_score": 0.1}, "en-de": {"main_score": 0.2}}}
    external = {**CURRENT, "mteb_version": None}
    newer = {**CURRENT, "mteb_version": "1.38.0"}
    paths = [
        write(tmp_path, "no_revision_available", "STS17", early),
        write(tmp_path, "external", "STS17", external),
        write(tmp_path, "aaa111", "STS17", CURRENT),
        write(tmp_path, "zzz999", "STS17", newer),  # run by the benchmark, newest mteb_version: chosen
    ]
    for path in paths[:3]:
        with pytest.raises(NotScoresError, match="zzz999/STS17.json is the one loaded"):
            parse_file(path)
    assert cells(paths[3])[("STS17", "main_score")] == pytest.approx(0.65)
    paths[3].unlink()
    # Without it, the current-format 1.12.75 run beats the early 1.1.0 run of the same task.
    assert cells(paths[2])[("STS17", "main_score")] == pytest.approx(0.65)
    with pytest.raises(NotScoresError, match="aaa111/STS17.json"):
        parse_file(paths[0])


def test_external_results_load_when_they_are_the_only_copy(tmp_path: Path):
    assert cells(write(tmp_path, "external", "STS17", {**CURRENT, "mteb_version": None}))[("STS17", "main_score")] == pytest.approx(0.65)


def test_bundled_sample_every_result_parses_and_one_metadata_file_per_model_loads():
    root = BUNDLED / "mteb-results-sample" / "results"
    files = sorted(root.rglob("*.json"))
    meta = [f for f in files if f.name == "model_meta.json"]
    # find results -name '*.json' | wc -l: 516; -name model_meta.json: 20, in 10 model folders.
    assert len(files) == 516 and len(meta) == 20
    loaded = {}
    for path in meta:
        try:
            systems = parse_file(path)[1].systems
        except NotScoresError as error:
            assert "superseded metadata of this model" in str(error)
            continue
        loaded[path.parent.parent.name] = (path.parent.name, systems.row(0, named=True))
    assert len(loaded) == 10
    # bge-m3's model_meta.json: "n_parameters": 568000000, "release_date": "2024-06-28", 29 languages, "license": "mit".
    revision, bge = loaded["BAAI__bge-m3"]
    assert (bge["system"], bge["revision"], bge["n_parameters"], bge["release_date"], len(bge["languages"]), bge["license"]) == (
        "BAAI/bge-m3", "5617a9f61b028005a4858fdac845db406aefb181", 568000000, "2024-06-28", 29, "mit")
    # all-mpnet-base-v2 has 3 revision folders (grep mteb_version): 84f2bc... results of mteb 1.12.75 and
    # no_revision_available of 1.12.79, both with all-null metadata; 9a3225... results up to mteb 2.3.0 and full metadata.
    revision, mpnet = loaded["sentence-transformers__all-mpnet-base-v2"]
    assert revision == "9a3225965996d404b775526de6dbfe85d3368642" and mpnet["n_parameters"] == 109486464
    # all-MiniLM-L6-v2's early DiaBLa file (mteb 1.1.2.dev0): one subset, fr-en, main_score 0.03498878152491112.
    sample = root / "sentence-transformers__all-MiniLM-L6-v2" / "no_revision_available" / "DiaBLaBitextMining.json"
    got = cells_of(sample)
    assert float(got[("DiaBLaBitextMining", "main_score")]) == 0.03498878152491112
    assert got[("DiaBLaBitextMining", "evaluation_time")] == 6.62


def cells_of(path: Path) -> dict[tuple[str, str], float | None]:
    rows = parse_file(path)[1].rows
    return {(r["task"], r["metric"]): r["value"] for r in rows.iter_rows(named=True)}


def write_meta(root: Path, revision: str, doc: dict) -> Path:
    path = root / "results" / MODEL / revision / "model_meta.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def test_model_metadata_of_either_generation_with_missing_and_mistyped_fields(tmp_path: Path):
    current = {"name": "org/model-x", "revision": "abc123", "release_date": "2024-02-08", "languages": ["eng-Latn", "fra-Latn"],
               "n_parameters": 7111000000, "memory_usage_mb": 13563.0, "max_tokens": 32768.0, "embed_dim": 4096,
               "license": "mit", "open_weights": True, "framework": ["PyTorch"], "adapted_from": None}
    parsed = parse_file(write_meta(tmp_path / "a", "abc123", current))[1]
    assert parsed.rows.height == 0  # metadata, no scores
    assert parsed.systems.row(0, named=True) == {
        "benchmark": "mteb", "system": "org/model-x", "revision": "abc123", "release_date": "2024-02-08",
        "n_parameters": 7111000000, "memory_usage_mb": 13563.0, "max_tokens": 32768.0, "embed_dim": 4096,
        "languages": ["eng-Latn", "fra-Latn"], "license": "mit", "open_weights": True, "framework": ["PyTorch"],
        "reference": None, "adapted_from": None,
    }
    # An older file names two fields differently (memory_usage, open_source) and lacks most others.
    early = {"name": "org/model-x", "revision": "no_revision_available", "memory_usage": 418, "open_source": False,
             "languages": "en", "n_parameters": "7B", "license": ["mit"]}
    parsed = parse_file(write_meta(tmp_path / "b", "no_revision_available", early), benchmark="mteb-old")[1]
    row = parsed.systems.row(0, named=True)
    assert (row["benchmark"], row["memory_usage_mb"], row["open_weights"], row["languages"]) == ("mteb-old", 418.0, False, ["en"])
    assert row["n_parameters"] is None and row["license"] is None and row["release_date"] is None
    assert "field(s) ['n_parameters', 'license'] left null" in parsed.problems[1]


def test_metadata_and_results_choose_their_revision_by_the_same_rule(tmp_path: Path):
    """A model with three revision folders: the metadata loaded is the one beside the results the rule keeps."""
    newer = {**CURRENT, "mteb_version": "1.38.0"}
    early = {"mteb_dataset_name": "STS17", "mteb_version": "1.1.0", "test": {"main_score": 0.1}}
    folders = {"external": {**newer, "mteb_version": "2.0.0"}, "zzz999": early, "aaa111": newer}
    for revision, result in folders.items():
        write(tmp_path, revision, "STS17", result)
        write_meta(tmp_path, revision, {"name": "org/model-x", "revision": revision})
    # external is never preferred to a run by the benchmark; then 1.38.0 beats 1.1.0, whatever the folder names.
    model = tmp_path / "results" / MODEL
    for revision in folders:
        loads = revision == "aaa111"
        for path in (model / revision / "STS17.json", model / revision / "model_meta.json"):
            if loads:
                parse_file(path)
            else:
                with pytest.raises(NotScoresError, match="aaa111/"):
                    parse_file(path)
