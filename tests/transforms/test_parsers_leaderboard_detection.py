"""Format detection: every bundled leaderboard dump is recognised as exactly
its format (``parse_file`` refuses ambiguity), and unrelated files are a
ParseError naming the file."""

from __future__ import annotations

import pytest

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_leaderboard import written
from scorehouse.transforms.parsers import detect_format, parse_file
from scorehouse.transforms.parsers.base import ParseError

CASE = "vote_and_rank/tables/case_study_4/"
EXPECTED = {
    "vote_and_rank/tables/leaderboards - GLUE.csv": "votenrank-leaderboard",
    "vote_and_rank/tables/leaderboards - SuperGLUE.csv": "votenrank-leaderboard",
    "vote_and_rank/tables/leaderboards - VALUE.csv": "value-leaderboard",
    CASE + "glue_hpc.csv": "wide-leaderboard",
    CASE + "social_bias_data.csv": "wide-leaderboard",
    CASE + "experiment_tracker_table.csv": "wide-leaderboard",
    "RankingNLPSystems/data/glue.data": "rankingnlp-leaderboard",
    "RankingNLPSystems/data/superglue.data": "rankingnlp-leaderboard",
    "RankingNLPSystems/data/xtrem.data": "rankingnlp-leaderboard",
    "RankingNLPSystems/sample_df/glue.csv": "rankingnlp-leaderboard",
    "RankingNLPSystems/sample_df/glue.data": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/glue.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/superglue.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/xtrem.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/glue_filtered.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/superglue_filtered.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/xtrem_filtered.csv": "rankingnlp-leaderboard",
    "MissingDataRanking/data_task/gem.csv": "wide-leaderboard",
    "MissingDataRanking/data_task/gem_filtered.csv": "wide-leaderboard",
    "MissingDataRanking/example_data_cli/xtreme_missing.csv": "rankingnlp-leaderboard",
}
GEM = sorted((BUNDLED / "MissingDataRanking/data_generation/gem/scores_and_outputs/GEM-outputs").glob("*.json"))


@pytest.mark.parametrize(("relative", "name"), sorted(EXPECTED.items()))
def test_each_bundled_table_is_detected(relative, name):
    fmt, parsed = parse_file(BUNDLED / relative)
    assert fmt.name == name
    assert parsed.rows.height > 0


def test_every_gem_file_is_detected():
    assert len(GEM) == 33
    assert {detect_format(path).name for path in GEM} == {"gem-scores-json"}


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.txt", b"Meeting notes\nnothing to see here\n"),
        ("scores.csv", b"Model,Score,CoLA\nBERT,80,60\n"),  # a header no format claims
        ("gem.csv", b"system,bleu\nA,1\n"),  # a known name with another header
        ("other.scores.json", b'{"name": "x"}'),
        ("empty.csv", b""),
        ("noise.data", bytes(range(256))),
    ],
)
def test_unrelated_files_are_named_parse_errors(name, content):
    with written(name, content) as path:
        with pytest.raises(ParseError, match="unrecognised format") as err:
            parse_file(path)
    assert err.value.file == str(path)
    assert name in str(err.value)


def test_explicit_format_reads_an_unknown_wide_file():
    with written("my_board.csv", b"system,taskA,taskB\nX,1,2\n") as path:
        fmt, parsed = parse_file(path, format="wide-leaderboard", benchmark="mine")
    assert fmt.name == "wide-leaderboard"
    assert parsed.rows.height == 2


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("empty.csv", b"", "the file is empty"),
        ("blank.csv", b"\n \n\t\n", "only blank lines"),
        ("wide16.csv", "System,Utterance,bleu\nA,u,1\n".encode("utf-16"), "UTF-16"),
        ("wide16be.csv", "System,Utterance,bleu\nA,u,1\n".encode("utf-16-be"), "UTF-16"),
        ("cut.parquet", b"PAR1" + b"\x00\x15" * 50, "Parquet file that cannot be read"),
    ],
)
def test_an_unrecognised_file_says_what_is_wrong_with_it(name, content, why):
    """Issue 17, item 8: empty, blank, UTF-16 and corrupt Parquet files are named as such."""
    with written(name, content) as path:
        with pytest.raises(ParseError, match="unrecognised format") as err:
            parse_file(path)
    assert why in str(err.value)
