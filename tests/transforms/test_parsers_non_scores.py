"""Known non-score files are rejected with what they are; every bundled file is exactly one format.

References: shared/data/README.md (flickr.json: 5,664 {refs, cand, score},
no system ids; id.txt lists 16 teams; the correlation JSONs are the
paper's experiment outputs) and the files themselves.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_instance import mangled
from tests.transforms.strategies_leaderboard import written
from scorehouse.transforms.parsers import FORMATS, non_scores, parse_file, read_head
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.warehouse.schema import METRIC_RULES

MDR = BUNDLED / "MissingDataRanking"
CAPTIONING = MDR / "data_generation/data/Captioning"
RULES_FILE = Path(__file__).resolve().parents[2] / "warehouse" / "defaults" / "metric_rules.csv"


@pytest.mark.parametrize(
    ("relative", "message"),
    [
        ("coco_captioning_challenge/karpathy/metadata",
         r"COCO captioning evaluation-job metadata \(elapsedTime and exitCode of the server run\), not scores"),
        ("coco_captioning_challenge/human/metadata", "COCO captioning evaluation-job metadata"),
        ("coco_captioning_challenge/id.txt",
         r"list of the 16 team folders next to it \(OriolVinyals, ryank, junhua.mao, ...\), not scores"),
        ("flickr.json",
         r"5664 caption judgments \{refs, cand, score\} without any system id: .* there is no system to rank"),
    ],
)
def test_captioning_non_scores_are_rejected_with_the_reason(relative, message):
    path = CAPTIONING / relative
    with pytest.raises(ParseError, match=message) as err:
        parse_file(path)
    assert err.value.file == str(path)
    assert "docs/raw-sources.md" in str(err.value)


@pytest.mark.parametrize(
    ("relative", "source"),
    [("task_level_correlations/glue.json", "data_task/glue.csv"),
     ("instance_level_correlations/TAC/TAC_08_0.json", "final_df/TAC/TAC_08.csv")],
)
def test_experiment_outputs_are_rejected_with_the_reason(relative, source):
    with pytest.raises(ParseError, match=f"MissingDataRanking experiment output .*computed from {source}\\), not a score dump"):
        parse_file(MDR / relative)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("metadata", b"author: me\nversion: 2\n"),  # another metadata file
        ("id.txt", b"alpha\nbeta\n"),  # names that are no folders next to it
        ("flickr.json", b'{"0": {"system": "A", "score": 1}}'),
        ("results.json", b'{"file": "x.csv", "scores": [1, 2]}'),
    ],
)
def test_look_alikes_are_not_claimed(name, content):
    with written(name, content) as path:
        with pytest.raises(ParseError, match="unrecognised format"):
            parse_file(path)


def test_caption_judgments_with_other_keys_are_not_explained_away():
    with written("judgments.json", b'{"0": {"refs": ["a"], "cand": ["b"], "score": 1, "system": "S"}}') as path:
        with pytest.raises(ParseError, match=r"keys \['cand', 'refs', 'score', 'system'\]; no parser knows this layout"):
            parse_file(path)


def test_every_bundled_file_is_exactly_one_format():
    """Sniffers exclude one another on the real files: each bundled dump is claimed by one format."""
    claims = {}
    for path in sorted(BUNDLED.rglob("*")):
        if path.is_file() and path.name != "PROVENANCE.md":
            head = read_head(path)
            claims[path.relative_to(BUNDLED).as_posix()] = [f.name for f in FORMATS.values() if f.sniff(path, head)]
    assert {p: c for p, c in claims.items() if len(c) != 1} == {}
    raw = {p: c[0] for p, c in claims.items() if "data_generation/data" in p or "_correlations" in p}
    assert sorted(set(raw.values())) == [
        "coco-eval-json", "coco-scores-txt", "known-non-score", "tac-resp-pyr-json", "usr-ratings-json"
    ]
    # metadata x4, id.txt, flickr.json, and the experiment outputs: 5 task-level correlation JSONs
    # (the analysis compares against four of them) and one instance-level one
    assert sum(c == "known-non-score" for c in raw.values()) == 4 + 1 + 1 + 5 + 1


def test_metric_rules_of_the_raw_sources():
    """First matching rule, resolved with fnmatch, for the metrics the new parsers emit."""
    rules = pl.read_csv(RULES_FILE, schema=METRIC_RULES)

    def rule(benchmark: str, task: str, metric: str) -> tuple[bool, bool, float]:
        for row in rules.iter_rows(named=True):
            if fnmatchcase(benchmark, row["benchmark"]) and fnmatchcase(task, row["task"]) and fnmatchcase(metric, row["metric"]):
                return row["higher_is_better"], row["is_ranked"], row["weight"]
        raise AssertionError("the catch-all matches everything")

    assert rule("usr-pc-human", "pc", "H:Overall") == (True, True, 1.0)
    assert rule("usr-tc-human", "tc", "H:Maintains Context@sm") == (True, False, 0.0)
    assert rule("tac-09-human", "09", "H:pyr_score") == (True, True, 1.0)
    assert rule("tac-08-human", "08", "H:responsiveness") == (True, True, 1.0)
    assert rule("tac-08-human", "08", "H:pyr_mod_score") == (True, False, 0.0)
    assert rule("coco-2015", "test-c40", "CIDEr") == (True, True, 1.0)
    # the -mdr rules stay for the negated copies only
    assert rule("usr-pc-mdr", "pc", "BLEU") == (False, True, 1.0)


@settings(max_examples=100, deadline=None)
@given(
    source=st.sampled_from([
        "data_generation/data/Captioning/coco_captioning_challenge/karpathy/metadata",
        "task_level_correlations/glue.json",
        "data_generation/data/Captioning/coco_captioning_challenge/id.txt",
    ]),
    data=st.data(),
)
def test_mangled_non_scores_only_raise_parse_errors(source, data):
    """The recogniser never returns rows and never fails otherwise, whatever the bytes."""
    damaged = data.draw(mangled((MDR / source).read_text()))
    with written(Path(source).name, damaged) as path:
        with pytest.raises(ParseError) as err:
            non_scores.parse(path, None)
    assert str(path) in str(err.value)
