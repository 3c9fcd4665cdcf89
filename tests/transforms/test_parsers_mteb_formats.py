"""Every MTEB result-file format the results repository holds, on real files copied from it unchanged.

``fixtures/mteb-formats/results`` holds one file of each layout found by reading every file of
embeddings-benchmark/results (grouped by ``mteb_version``, top-level keys and split layout):
earliest files without a version (flat and with subsets), mteb 0.0 / 1.0 / 1.1 / 1.7 early files
(flat, with subsets, with and without ``main_score``, a ``dev``-only file), the current format of
mteb 1.12, a copy from a model card (``external``, version null), 1.34 with text fields, 1.36 repeating
``mteb_dataset_name``, 2.3 with four subsets, 2.18 with ``date`` and ``evaluation_phases``; and
beside them a run under ``experiments/``, a 2.x ``model_meta.json`` and ``run_settings.jsonl``.

Expected values are read off the files by hand (quoted next to each assertion); the number of
cells of every file is checked against a brute-force count written here from the naming rules.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from scorehouse.transforms.parsers import FORMATS, parse_file, read_head
from scorehouse.transforms.parsers.base import NotScoresError, Parsed, ParseError
from scorehouse.transforms.parsers.mteb import parse_results

ROOT = Path(__file__).parent / "fixtures" / "mteb-formats" / "results"
HARRIER = ROOT / "microsoft__harrier-oss-v1-0.6b" / "f9b9dc8d367d443f2479d27aa5d8d2850c0774ee"
RESULTS = sorted(p for p in ROOT.rglob("*.json") if p.name != "model_meta.json" and "experiments" not in p.parts)


def cells(parsed: Parsed) -> dict[tuple[str, str], float | None]:
    return {(r["task"], r["metric"]): r["value"] for r in parsed.rows.iter_rows(named=True)}


def by_name(name: str) -> dict[tuple[str, str], float | None]:
    return cells(parse_file(next(p for p in RESULTS if p.name == name))[1])


def numeric_leaves(value: object) -> int:
    """Brute force: how many numbers (or nulls) ``value`` holds at any depth; text and booleans are none."""
    if isinstance(value, bool) or isinstance(value, str):
        return 0
    if isinstance(value, dict):
        return sum(numeric_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(numeric_leaves(v) for v in value)
    return 1


def expected_count(doc: dict) -> int:
    """Cells of a result by the rules: every number but the names, less the main_score of a single-subset
    evaluation split (it is the headline), plus one headline when every evaluation subset has a main_score."""
    names = ("mteb_dataset_name", "mteb_version", "dataset_revision")
    if "scores" in doc:
        splits = {s: entries for s, entries in doc["scores"].items()}
        total = numeric_leaves({k: v for k, v in doc.items() if k not in (*names, "scores")})
        total += sum(numeric_leaves({k: v for k, v in e.items() if k != "hf_subset"}) for es in splits.values() for e in es)
    else:
        splits = {}
        for split, body in doc.items():
            if isinstance(body, dict):
                similarity = ("cos_sim", "euclidean", "manhattan", "dot", "max")  # metric groups, not subsets
                subsets = [v for k, v in body.items() if isinstance(v, dict) and k not in similarity]
                splits[split] = subsets or [body]
        total = numeric_leaves({k: v for k, v in doc.items() if k not in names})
    main = next((s for s in ("test", "validation", "dev") if s in splits), next(iter(splits)))
    subsets = splits[main]
    has_headline = all(isinstance(e.get("main_score"), float | int) for e in subsets)
    single = len(subsets) == 1 and "main_score" in subsets[0]
    return total - single + has_headline


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_format_parses_to_the_brute_force_number_of_cells(path: Path):
    fmt, parsed = parse_file(path)
    assert fmt.name == "mteb-results"
    assert parsed.rows.height == expected_count(json.loads(path.read_text(encoding="utf-8")))
    assert parsed.rows.get_column("system").unique().to_list() == [path.parent.parent.name.replace("__", "/", 1)]


def test_earliest_files_without_a_version():
    # {"test": {"ndcg_at_10": 0.3997}, "mteb_dataset_name": "DBPedia"}: no main_score, so no headline
    assert by_name("DBPedia.json") == {("DBPedia", "ndcg_at_10"): 0.3997}
    # {"test": {"en": {"accuracy": 0.4573}}, ...}: one subset, kept under the task itself
    assert by_name("AmazonReviewsClassification.json") == {("AmazonReviewsClassification", "accuracy"): 0.4573}
    problems = parse_file(next(p for p in RESULTS if p.name == "DBPedia.json"))[1].problems
    assert "revision 1 (mteb None)" in problems and any("no main_score in the 'test' split" in p for p in problems)


def test_early_files_of_mteb_0_to_1_7():
    # mteb 0.0.2, subset "en" with main_score 0.9242134062927496 and the split's "evaluation_time": 25.57
    mtop = by_name("MTOPDomainClassification.json")
    assert mtop[("MTOPDomainClassification", "main_score")] == 0.9242134062927496
    assert mtop[("MTOPDomainClassification", "evaluation_time")] == 25.57
    assert mtop[("MTOPDomainClassification", "f1_stderr")] == 0.00977815776141202
    # mteb 1.0.2 with a "dev" split only: it is the evaluation split; "ndcg_at_10": 0.49896, no main_score
    medical = by_name("MedicalRetrieval.json")
    assert medical[("MedicalRetrieval", "ndcg_at_10")] == 0.49896 and ("MedicalRetrieval", "main_score") not in medical
    # mteb 1.0.2 flat split with nested objects: "cos_sim": {"pearson": 0.6696350621219714, ...} is a metric
    # group of the one subset (a similarity function), not a subset
    lcqmc = by_name("LCQMC.json")
    assert lcqmc[("LCQMC", "cos_sim.pearson")] == 0.6696350621219714 and {t for t, _ in lcqmc} == {"LCQMC"}
    # mteb 1.1.1.dev0, flat with "main_score": 0.5562252405206565
    tweet = by_name("TweetSentimentExtractionClassification.json")
    assert tweet[("TweetSentimentExtractionClassification", "main_score")] == 0.5562252405206565
    # mteb 1.7.32: "p-MRR": -0.0239655472289634, "evaluation_time": 2359.21
    robust = by_name("Robust04InstructionRetrieval.json")
    assert robust == {("Robust04InstructionRetrieval", "evaluation_time"): 2359.21,
                      ("Robust04InstructionRetrieval", "p-MRR"): -0.0239655472289634}


def test_current_files_of_mteb_1_12_to_2_18():
    # 1.12.22: "kg_co2_emissions": null is a missing cell; "v_measures": {"Level 0": [0.5668694637683581, ...]}
    reddit = by_name("RedditClusteringP2P.v2.json")
    assert reddit[("RedditClusteringP2P.v2", "main_score")] == 0.5564603367498093
    assert reddit[("RedditClusteringP2P.v2", "kg_co2_emissions")] is None
    assert reddit[("RedditClusteringP2P.v2", "v_measures.Level 0[0]")] == 0.5668694637683581
    # external copy, "mteb_version": null and "evaluation_time": null; "main_score": 0.29685
    emotion = by_name("EmotionClassification.json")
    assert emotion[("EmotionClassification", "main_score")] == 0.29685
    assert emotion[("EmotionClassification", "evaluation_time")] is None
    # 1.34.14 with "mteb_main_score": "accuracy", "type", "description" (text, not cells); "main_score": 0.56624
    synper = by_name("SynPerChatbotConvSAClassification.json")
    assert set(synper) == {("SynPerChatbotConvSAClassification", m) for m in ("accuracy", "main_score", "evaluation_time",
                                                                              "kg_co2_emissions")}
    # 1.36.10 repeating "mteb_dataset_name": one subset "en"
    assert by_name("PawsXPairClassification.json")[("PawsXPairClassification", "cosine_ap")] == 0.672105
    # 2.3.0, four subsets: the headline is the mean of their main_scores 0.994711, 0.990462, 0.975061, 0.991575
    bucc = by_name("BUCC.v2.json")
    assert bucc[("BUCC.v2", "main_score")] == pytest.approx((0.994711 + 0.990462 + 0.975061 + 0.991575) / 4, abs=1e-15)
    assert bucc[("BUCC.v2/ru-en", "main_score")] == 0.975061 and bucc[("BUCC.v2/zh-en", "recall")] == 0.993681
    # 2.18.0: "date": 1783467163.244062 and "evaluation_phases": [{"name": "Data loading", "start": 4.627043381333351e-06, ...}]
    jqara = by_name("JQaRAReranking.json")
    assert jqara[("JQaRAReranking", "main_score")] == 0.50307
    assert jqara[("JQaRAReranking", "date")] == 1783467163.244062
    assert jqara[("JQaRAReranking", "evaluation_phases[0].start")] == 4.627043381333351e-06
    # "nauc_recall_at_100_max": NaN is kept as such, for validation to quarantine as non-finite
    assert math.isnan(jqara[("JQaRAReranking", "nauc_recall_at_100_max")])


def test_a_batch_parses_each_file_as_alone_and_keeps_errors_to_their_file(tmp_path: Path):
    broken = tmp_path / "results" / "org__m" / "r1" / "Broken.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"mteb_version": "1.12.0",\n "scores": {', encoding="utf-8")
    experiment = next(ROOT.rglob("experiments/*/*.json"))
    outcomes = parse_results([*RESULTS, broken, experiment], None)
    for path, outcome in zip(RESULTS, outcomes, strict=False):
        assert outcome.rows.equals(parse_file(path)[1].rows)  # NaN equal to NaN
    assert isinstance(outcomes[-2], ParseError) and outcomes[-2].line == 2 and "not valid JSON" in str(outcomes[-2])
    assert isinstance(outcomes[-1], NotScoresError) and "other settings (experiments/model_kwargs_{})" in str(outcomes[-1])


def test_mteb_2_metadata_and_run_settings_beside_the_results(tmp_path: Path):
    systems = parse_file(HARRIER / "model_meta.json")[1].systems
    # "n_parameters": 596042752, "release_date": "2026-03-27", "license": "mit", "embed_dim": 1024
    row = systems.row(0, named=True)
    assert (row["system"], row["n_parameters"], row["release_date"], row["license"], row["embed_dim"]) == (
        "microsoft/harrier-oss-v1-0.6b", 596042752, "2026-03-27", "mit", 1024)
    settings = HARRIER / "run_settings.jsonl"  # run settings, one JSON line per task run: no scores
    assert not any(FORMATS[name].sniff(settings, read_head(settings)) for name in ("mteb-results", "mteb-model-meta"))


def test_a_result_copied_to_a_newer_revision_supersedes_the_fixture(tmp_path: Path):
    model = tmp_path / "results" / "openai__text-embedding-3-small"
    shutil.copytree(ROOT / "openai__text-embedding-3-small", model)
    newer = model / "zz-newer" / "DBPedia.json"
    newer.parent.mkdir()
    newer.write_text(json.dumps({"mteb_version": "1.12.0", "task_name": "DBPedia",
                                 "scores": {"test": [{"hf_subset": "default", "main_score": 0.5}]}}), encoding="utf-8")
    with pytest.raises(NotScoresError, match="zz-newer/DBPedia.json is the one loaded"):
        parse_file(model / "1" / "DBPedia.json")
    assert cells(parse_file(newer)[1]) == {("DBPedia", "main_score"): 0.5}


def test_a_batch_parses_the_bytes_it_is_given_as_it_parses_the_files(tmp_path: Path):
    """An ingest batch hands the parser the bytes it read for the raw archive: every format parses from them as from
    the file, and bytes other than the file's now (it changed after the read) are what is parsed."""
    held = [(path.read_bytes(), 0, 0) for path in RESULTS]
    for path, given, read in zip(RESULTS, parse_results(RESULTS, None, held), parse_results(RESULTS, None), strict=True):
        assert given.rows.equals(read.rows), path  # NaN equal to NaN
    changed = tmp_path / "results" / "org__m" / "r1" / "Task.json"
    changed.parent.mkdir(parents=True)
    changed.write_text('{"mteb_version": "1.12.0", "task_name": "Task", "scores": {"test": [{"hf_subset": "default", '
                       '"main_score": 0.25}]}}')
    before = changed.read_bytes().replace(b"0.25", b"0.75")
    (outcome,) = parse_results([changed], None, [(before, 0, len(before))])
    assert cells(outcome)[("Task", "main_score")] == 0.75
