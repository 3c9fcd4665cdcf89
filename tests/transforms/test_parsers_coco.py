"""COCO 2015 captioning challenge parsers on four real team folders.

References: shared/data/README.md (14 lines per scores.txt, 7 metrics x 3
eval JSONs per team), the values in the files (read with grep / cat), and
an independent reading of every bundled eval JSON with ``json`` and of every
scores.txt with ``str.split`` to check that the test-split eval JSONs are
the scores.txt values rounded to three decimals (which is why they are refused).
"""

from __future__ import annotations

import json
import math
import re

import polars as pl
import pytest
from hypothesis import given, settings

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_instance import mangled, rows_or_none
from tests.transforms.strategies_leaderboard import written
from tests.transforms.strategies_raw import coco_evals, coco_scores
from scorehouse.transforms.parsers import coco_captioning, detect_format
from scorehouse.transforms.parsers.base import ParseError

COCO = BUNDLED / "MissingDataRanking/data_generation/data/Captioning/coco_captioning_challenge"
TEAMS = ["MSR_Captivator", "OriolVinyals", "human", "karpathy"]
METRICS = {"CIDEr", "Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "METEOR"}


def all_rows() -> pl.DataFrame:
    """Every row the two COCO formats give for the bundled teams (refused files give none)."""
    parts = []
    for team in TEAMS:
        parts.append(coco_captioning.parse_scores(COCO / team / "scores.txt", None).rows)
        for path in sorted((COCO / team).glob("captions_val2014_*_eval.json")):
            try:
                parts.append(coco_captioning.parse_eval(path, None).rows)
            except ParseError:
                continue
    return pl.concat(parts)


def test_detection():
    for team in TEAMS:
        assert detect_format(COCO / team / "scores.txt").name == "coco-scores-txt"
        for path in (COCO / team).glob("*_eval.json"):
            assert detect_format(path).name == "coco-eval-json"


def test_scores_txt_values_and_lines():
    rows = coco_captioning.parse_scores(COCO / "karpathy/scores.txt", None).rows
    assert rows.height == 14
    assert rows.select("benchmark", "system").unique().rows() == [("coco-2015", "karpathy")]
    assert rows["instance"].null_count() == 14
    assert rows.row(0) == ("coco-2015", "test-c5", "CIDEr", None, "karpathy", "0.673763", 1)
    assert rows.row(13) == ("coco-2015", "test-c40", "METEOR", None, "karpathy", "0.280395", 14)
    assert set(rows.filter(task="test-c40")["metric"]) == METRICS


def test_val2014_systems_and_values():
    oriol = coco_captioning.parse_eval(COCO / "OriolVinyals/captions_val2014_googlstm_eval.json", None)
    assert oriol.problems == ()
    assert dict(oriol.rows.select("metric", "value").iter_rows()) == {
        "CIDEr": "0.855", "Bleu_4": "0.277", "Bleu_3": "0.365", "Bleu_2": "0.495", "Bleu_1": "0.672",
        "ROUGE_L": "0.501", "METEOR": "0.237",
    }
    assert oriol.rows.select("task", "system").unique().rows() == [("val2014", "OriolVinyals")]
    assert oriol.rows["line"].unique().to_list() == [1]
    # val2014 runs that are not the team's test system get their own id
    karpathy = coco_captioning.parse_eval(COCO / "karpathy/captions_val2014_LSTM_eval.json", None)
    assert karpathy.rows["system"].unique().to_list() == ["karpathy:LSTM"]
    assert "'LSTM' is not the one evaluated on test2014 (VRNN)" in karpathy.problems[0]
    human = coco_captioning.parse_eval(COCO / "human/captions_val2014_rand_eval.json", None)
    assert human.rows["system"].unique().to_list() == ["human:rand"]
    assert human.rows.filter(metric="CIDEr")["value"].to_list() == ["0.026"]


def test_all_zero_val2014_is_refused():
    with pytest.raises(ParseError, match="every metric is 0 in team 'MSR_Captivator'.s val2014 eval: .*submitted no val2014"):
        coco_captioning.parse_eval(
            COCO / "MSR_Captivator/captions_val2014_d-me.dmsm.grnn.fc6.fc7.cider.pos.600best_eval.json", None
        )


@pytest.mark.parametrize("team", TEAMS)
def test_test_split_evals_are_scores_txt_rounded_and_refused(team):
    """Independent reading: scores.txt by str.split, eval JSON by json; then the parser refuses the copy."""
    full = {}
    for line in (COCO / team / "scores.txt").read_text().splitlines():
        key, value = line.split(":")
        split = "test2014c40" if key.endswith("Test40") else "test2014c5"
        full[(split, key.removesuffix("Test40").removesuffix("Test5"))] = float(value)
    evals = sorted((COCO / team).glob("captions_test2014c*_eval.json"))
    assert len(evals) == 2
    for path in evals:
        split = path.name.split("_")[1]
        rounded = json.loads(path.read_text())
        assert set(rounded) == METRICS
        assert all(math.isclose(v, round(full[(split, m)], 3), abs_tol=1e-9) for m, v in rounded.items())
        with pytest.raises(ParseError, match=f"{split} scores of team '{team}' are loaded from scores.txt"):
            coco_captioning.parse_eval(path, None)


def test_no_cell_is_loaded_twice():
    rows = all_rows()
    assert rows.height == 4 * 14 + 3 * 7  # MSR_Captivator's val2014 is refused
    assert rows.select("task", "metric", "system").is_unique().all()
    assert sorted(rows["task"].unique()) == ["test-c40", "test-c5", "val2014"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no 'METRIC<split>: value' line"),
        (b"CIDErTest5: 0.5\nCIDEr: 0.6\n", "'CIDEr' is not METRIC followed by a split"),
        (b"CIDErTest5: 0.5\nBleu_4Test5 0.3\n", "1 ':'-separated fields"),
    ],
)
def test_bad_scores_txt_is_a_named_error(content, message):
    with written("scores.txt", content) as path:
        with pytest.raises(ParseError, match=message):
            coco_captioning.parse_scores(path, None)


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"[1]", "a COCO eval file is one object"), (b'{"CIDEr": {"a": 1}}', "'CIDEr' holds a JSON dict"),
     (b"{", "not valid JSON")],
)
def test_bad_eval_json_is_a_named_error(content, message):
    with written("captions_val2014_x_eval.json", content) as path:
        with pytest.raises(ParseError, match=message):
            coco_captioning.parse_eval(path, None)


# -- mangled input --------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(data=coco_scores().flatmap(mangled))
def test_mangled_scores_txt_gives_rows_or_a_parse_error(data):
    with written("scores.txt", data) as path:
        rows = rows_or_none(coco_captioning.parse_scores, path, None)
    if rows is None:
        return
    lines = [line for line in data.decode("utf-8").split("\n") if line.strip()]
    assert rows.height == len(lines)
    assert rows["value"].to_list() == [line.split(":")[1].strip() for line in lines]
    refs = [re.search(r"Test(\d+)$", line.split(":")[0].strip()).group(1) for line in lines]
    assert rows["task"].to_list() == ["test-c" + n for n in refs]


@settings(max_examples=150, deadline=None)
@given(data=coco_evals().flatmap(mangled))
def test_mangled_eval_json_gives_rows_or_a_parse_error(data):
    with written("captions_val2014_x_eval.json", data) as path:
        rows = rows_or_none(coco_captioning.parse_eval, path, None)
    if rows is None:
        return
    doc = json.loads(data.decode("utf-8"), parse_float=str, parse_int=str, parse_constant=str)
    assert rows["metric"].to_list() == list(doc)
    assert rows["value"].to_list() == [{True: "true", False: "false"}.get(v, v) if isinstance(v, bool) else v
                                       for v in doc.values()]
