"""USR ratings and TAC responsiveness/pyramid parsers on the real raw sources.

References: shared/data/README.md (60 contexts x 5 / 6 responses, 3 annotators;
48 / 44 / 44 TAC topics, 62 / 59 / 54 summarizers per topic), values read
from the files with grep, the ``H:*`` columns of MissingDataRanking's
``DIALOGUE_*_data.csv`` (the annotator means, computed by its authors) and
the ``TAC_pyr`` pickle of RankingNLPSystems (the pyramid scores, positional).
"""

from __future__ import annotations

import json
import math

import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_instance import mangled, rows_or_none
from tests.transforms.strategies_leaderboard import written
from tests.transforms.strategies_raw import tac_documents, usr_documents
from scorehouse.transforms.parsers import detect_format, tac_resp_pyr, usr_ratings
from scorehouse.transforms.parsers.base import ParseError

RAW = BUNDLED / "MissingDataRanking/data_generation/data"
RATINGS = ["Understandable", "Natural", "Maintains Context", "Engaging", "Uses Knowledge", "Overall"]


@pytest.fixture(scope="module", params=["pc", "tc"])
def usr(request):
    path = RAW / f"Dialogue/{request.param}_usr_data.json"
    return request.param, usr_ratings.parse(path, None)


def test_usr_counts_names_and_detection(usr):
    subset, parsed = usr
    rows = parsed.rows
    models = {"pc": 5, "tc": 6}[subset]
    assert parsed.problems == ()
    assert detect_format(RAW / f"Dialogue/{subset}_usr_data.json").name == "usr-ratings-json"
    assert rows["benchmark"].unique().to_list() == [f"usr-{subset}-human"]
    assert rows["task"].unique().to_list() == [subset]
    means = rows.filter(~pl.col("metric").str.contains("@"))
    assert means.height == 60 * models * 6
    assert sorted(means["metric"].unique()) == sorted(f"H:{r}" for r in RATINGS)
    assert means["instance"].n_unique() == 60 and means["system"].n_unique() == models
    assert rows.filter(pl.col("metric").str.contains("@")).height == 60 * models * 6 * 3
    assert rows["value"].null_count() == 0 and rows["line"].null_count() == 0


def test_usr_exact_values_and_lines():
    rows = usr_ratings.parse(RAW / "Dialogue/pc_usr_data.json", None).rows
    # lines 13-45 of the file: context 0, "Original Ground Truth", Engaging [1, 2, 1] by shikib, maxine, mckenna
    first = rows.filter(instance="0", system="Original Ground Truth")
    engaging = dict(first.filter(pl.col("metric").str.starts_with("H:Engaging")).select("metric", "value").iter_rows())
    assert engaging == {
        "H:Engaging": "1.3333333333333333", "H:Engaging@shikib": "1", "H:Engaging@maxine": "2", "H:Engaging@mckenna": "1"
    }
    assert first["line"].unique().to_list() == [13]
    assert rows.filter(instance="0", system="KV-MemNN")["line"].unique().to_list() == [47]


def test_usr_means_equal_the_published_human_columns(usr):
    """MissingDataRanking's DIALOGUE_*_data.csv stores the annotator means as H:* (raw, not negated)."""
    subset, parsed = usr
    published = pd.read_csv(BUNDLED / f"MissingDataRanking/final_df/Dialogue/DIALOGUE_{subset}_data.csv")
    long = published.melt(id_vars=["System", "Utterance"], value_vars=[f"H:{r}" for r in RATINGS])
    ours = parsed.rows.filter(~pl.col("metric").str.contains("@")).to_pandas()
    ours["Utterance"] = ours["instance"].astype(int)
    joined = long.merge(ours, left_on=["System", "Utterance", "variable"], right_on=["system", "Utterance", "metric"])
    assert len(joined) == len(long) == 60 * {"pc": 4, "tc": 5}[subset] * 6  # all but "Original Ground Truth"
    assert (joined["value_x"] - joined["value_y"].astype(float)).abs().max() < 1e-12


def test_usr_junk_rating_leaves_the_mean_empty_and_keeps_the_raw_value():
    doc = [{"annotators": ["a", "b"], "responses": [{"model": "M", "Overall": [3, "x"], "Natural": [1, 2]}]}]
    with written("pc_usr_data.json", json.dumps(doc, indent=1).encode()) as path:
        parsed = usr_ratings.parse(path, None)
    assert parsed.rows.select("metric", "value").rows() == [
        ("H:Overall", None), ("H:Natural", "1.5"), ("H:Overall@a", "3"), ("H:Overall@b", "x"),
        ("H:Natural@a", "1"), ("H:Natural@b", "2"),
    ]
    assert "1 mean rating(s) left empty" in parsed.problems[0]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"a": 1}, "top level is a JSON dict"),
        ([{"responses": []}], "context 0: 'annotators' is not a list"),
        ([{"annotators": ["a"], "responses": [{"Overall": [1]}]}], "context 0: response 0 has no 'model' name"),
        ([{"annotators": ["a", "b"], "responses": [{"model": "M", "Overall": [1]}]}],
         "context 0, model 'M': 'Overall' is \\[1\\]; expected one rating per annotator \\(2: a, b\\)"),
    ],
)
def test_usr_bad_structure_is_a_named_error(doc, message):
    with written("pc_usr_data.json", json.dumps(doc).encode()) as path:
        with pytest.raises(ParseError, match=message) as err:
            usr_ratings.parse(path, None)
    assert "pc_usr_data.json" in str(err.value)


def test_unknown_usr_file_needs_a_benchmark():
    doc = [{"annotators": ["a"], "responses": [{"model": "M", "Overall": [4]}]}]
    with written("mine.json", json.dumps(doc).encode()) as path:
        with pytest.raises(ParseError, match="pass --benchmark"):
            usr_ratings.parse(path, None)
        assert usr_ratings.parse(path, "b").rows.select("benchmark", "task").row(0) == ("b", "mine")


@pytest.mark.parametrize(("year", "topics", "peers", "humans", "per_human"), [
    ("08", 48, 58, 8, 24), ("09", 44, 55, 8, 22), ("11", 44, 50, 8, 22),
])
def test_tac_counts_and_names(year, topics, peers, humans, per_human):
    path = RAW / f"TAC/tac.{year}.mds.gen.resp-pyr"
    assert detect_format(path).name == "tac-resp-pyr-json"
    parsed = tac_resp_pyr.parse(path, None)
    rows = parsed.rows
    assert parsed.problems == ()
    assert rows["benchmark"].unique().to_list() == [f"tac-{year}-human"]
    assert rows["instance"].n_unique() == topics
    judged = rows.filter(metric="H:responsiveness")
    assert judged.height == peers * topics + humans * per_human
    counts = judged.group_by("system").len()
    assert sorted(counts.filter(pl.col("system").str.contains(r"^[A-H]$"))["len"].unique()) == [per_human]
    assert sorted(counts.filter(pl.col("system").str.contains(r"^\d+$"))["len"].unique()) == [topics]
    modified = rows.filter(metric="H:pyr_mod_score")
    assert modified.height == (0 if year == "11" else peers * topics)  # none for humans, none in 2011
    assert rows.height == 2 * judged.height + modified.height
    assert rows["line"].unique().to_list() == [1]  # the released files are one line
    assert rows["value"].null_count() == 0


def test_tac_exact_values():
    rows = tac_resp_pyr.parse(RAW / "TAC/tac.08.mds.gen.resp-pyr", None).rows
    first = rows.filter(instance="D0845", system="0")
    assert dict(first.select("metric", "value").iter_rows()) == {
        "H:responsiveness": "2.0", "H:pyr_mod_score": "0.262", "H:pyr_score": "0.263"
    }
    eleven = tac_resp_pyr.parse(RAW / "TAC/tac.11.mds.gen.resp-pyr", None).rows
    assert dict(eleven.filter(instance="D1122-A", system="C").select("metric", "value").iter_rows()) == {
        "H:pyr_score": "0.675", "H:responsiveness": "5"
    }
    nine = tac_resp_pyr.parse(RAW / "TAC/tac.09.mds.gen.resp-pyr", None).rows
    assert nine.filter(metric="H:responsiveness")["value"].cast(pl.Float64).max() == 10.0  # 1-10 scale in 2009


@pytest.mark.parametrize("year", ["08", "09", "11"])
def test_tac_pyramid_equals_the_rankingnlp_pickle(year):
    """The TAC_pyr pickle holds pyr_score per topic (row) and annotation position (column M<i>)."""
    frame = pd.read_pickle(BUNDLED / "RankingNLPSystems/data/human_annotations/TAC_pyr_dataframe.pickle")["TAC_pyr"][year]
    rows = tac_resp_pyr.parse(RAW / f"TAC/tac.{year}.mds.gen.resp-pyr", None).rows.filter(metric="H:pyr_score")
    ours = rows.with_columns(
        topic=pl.col("instance").rle_id(),
        position=pl.int_range(pl.len()).over(pl.col("instance").rle_id()),
    )
    assert ours["topic"].max() + 1 == frame.shape[0] and ours["position"].max() + 1 == frame.shape[1]
    expected = frame.to_numpy()[ours["topic"].to_numpy(), ours["position"].to_numpy()]
    assert (ours["value"].cast(pl.Float64).to_numpy() == expected).all()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1], "top level is a JSON list"),
        ({"D1": {"references": []}}, "topic 'D1' has no list of 'annotations'"),
        ({"D1": {"annotations": [{"pyr_score": 1}]}}, "topic 'D1': annotation 0 has no 'summ_id'"),
        ({"D1": {"annotations": [{"summ_id": "3", "pyr_score": [1]}]}}, "summarizer '3': 'pyr_score' holds a JSON list"),
    ],
)
def test_tac_bad_structure_is_a_named_error(doc, message):
    with written("tac.08.mds.gen.resp-pyr", json.dumps(doc).encode()) as path:
        with pytest.raises(ParseError, match=message):
            tac_resp_pyr.parse(path, None)


# -- mangled input: only ParseError or rows, and the rows are the cells json.loads sees ----------

def loaded(data: bytes):
    """The document as Python's json module reads it, numbers kept as their text."""
    try:
        return json.loads(data.decode("utf-8"), parse_float=str, parse_int=str, parse_constant=str)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None


def as_published(value) -> str | None:
    return {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value


def mean_or_none(values: list) -> float | None:
    """The mean when every value is a finite JSON number (``values`` read by plain ``json.loads``)."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return None
    return sum(float(v) for v in values) / len(values)  # IEEE arithmetic, as a sum then a division (fsum raises on overflow)


@settings(max_examples=150, deadline=None)
@given(data=usr_documents().flatmap(mangled))
def test_usr_mangled_files_give_rows_or_a_parse_error(data):
    with written("tc_usr_data.json", data) as path:
        rows = rows_or_none(usr_ratings.parse, path, None)
    if rows is None:
        return
    doc = loaded(data)
    assert doc is not None, "rows from bytes that are not JSON"
    rated = [(r, k) for c in doc for r in c["responses"] for k in r if k not in ("response", "model")]
    assert rows.height == sum(1 + len(r[k]) for r, k in rated)
    each = rows.filter(pl.col("metric").str.contains("@"))["value"].to_list()
    assert sorted(each, key=str) == sorted((as_published(v) for r, k in rated for v in r[k]), key=str)
    means = rows.filter(~pl.col("metric").str.contains("@"))["value"].to_list()
    plain = json.loads(data.decode("utf-8"))
    expected = [mean_or_none(r[k]) for c in plain for r in c["responses"] for k in r if k not in ("response", "model")]
    assert [m is None for m in means] == [e is None for e in expected]
    assert all(m is None or math.isclose(float(m), e, rel_tol=1e-12) for m, e in zip(means, expected))


@settings(max_examples=150, deadline=None)
@given(data=tac_documents().flatmap(mangled))
def test_tac_mangled_files_give_rows_or_a_parse_error(data):
    with written("tac.09.mds.gen.resp-pyr", data) as path:
        rows = rows_or_none(tac_resp_pyr.parse, path, None)
    if rows is None:
        return
    doc = loaded(data)
    assert doc is not None, "rows from bytes that are not JSON"
    cells = [(topic, n["summ_id"], k, v) for topic, entry in doc.items() for n in entry["annotations"]
             for k, v in n.items() if k not in ("summ_id", "topic_id", "text")]
    assert rows.select("instance", "system", "metric", "value").rows() == [
        (topic, summ, f"H:{k}", as_published(v)) for topic, summ, k, v in cells
    ]
