"""Published worked examples, stored as data in ``cases/*.json`` (each says where its numbers come from)."""

import json
import re
from pathlib import Path

import polars as pl
import pytest

from scorehouse.aggregators import aggregate, build_profile, run
from scorehouse.aggregators.majority import majority

CASES = sorted(Path(__file__).with_name("cases").glob("*.json"))


def load(path: Path) -> tuple[dict, pl.DataFrame]:
    case = json.loads(path.read_text())
    ballots = pl.DataFrame(case["ballots"]).with_columns(pl.col("score", "weight").cast(pl.Float64))
    return case, ballots


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_published_scores(path):
    case, ballots = load(path)
    for expected in case.get("scores", []):
        got = dict(aggregate(expected["method"], ballots, **expected["params"]).select("system", "score").iter_rows())
        assert got == pytest.approx(expected["scores"]), expected["method"]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_published_orders(path):
    case, ballots = load(path)
    for expected in case.get("orders", []):
        result = run(expected["method"], ballots, params=expected["params"])
        assert result.ranking["system"].to_list() == expected["order"]
        if "disagreement" in expected:
            stated = float(re.search(r"disagreement (\S+)", result.notes[0]).group(1))
            assert stated == pytest.approx(expected["disagreement"])


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_published_winners(path):
    case, ballots = load(path)
    for expected in case.get("winners", []):
        result = aggregate(expected["method"], ballots, **expected["params"])
        assert sorted(result.filter(pl.col("rank") == 1)["system"]) == sorted(expected["winners"])
    if "condorcet_loser" in case:
        profile = build_profile(ballots)
        assert profile.systems[majority(profile).condorcet_loser()] == case["condorcet_loser"]
