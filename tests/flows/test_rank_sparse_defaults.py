"""``scorehouse rank`` on a leaderboard with missing scores: the defaults chosen for its shape are printed and kept
in the snapshots, a system below the minimum coverage is listed and not ranked, --only-task selects voters;
battles without time stamps rank with Bradley-Terry, and Elo asked for averages seeded orders and says so."""

import json
from pathlib import Path

import pytest

from scorehouse.cli import main
from tests.flows.conftest import sql

# A code leaderboard: four tasks; "tiny" is scored on one task only, where it is best.
LEADERBOARD = """model,humaneval,mbpp,ds1000,apps
big,80,75,60,40
mid,70,65,50,30
small,60,55,,20
tiny,99,,,
"""



@pytest.fixture
def home(tmp_path: Path) -> str:
    home = str(tmp_path / "home")
    table = tmp_path / "code.csv"
    table.write_text(LEADERBOARD)
    # --score-columns given three times keeps the columns of all three (it once kept the last only)
    assert main(["--home", home, "ingest", str(table), "--benchmark", "code", "--system", "model",
                 "--score-columns", "humaneval", "--score-columns", "mbpp", "--score-columns", "[ad]*"]) == 0
    return home


def test_sparse_defaults_are_printed_and_kept_and_a_low_coverage_system_is_listed_not_ranked(home, capsys):
    capsys.readouterr()
    assert main(["--home", home, "rank", "--benchmark", "code"]) == 0
    out = capsys.readouterr().out
    assert "default methods for missing scores: mean, mean_adjusted, borda_partial, bradley_terry" in out
    said = ("--min-coverage 0.5 of the 4 voters the best-covered system has: at least 2; not ranked: 1 system(s) "
            "scored on fewer: tiny (1/4)")
    assert said in out
    snapshots = sql(home, "SELECT method, parameters, notes FROM snapshots ORDER BY method")
    for method, parameters, notes in snapshots.rows():
        assert json.loads(parameters) == {"min_coverage": 0.5, "min_coverage_of": "best-covered"}, method
        assert notes[:2] == ["a default method for missing scores data", said], method
    ranked = sql(home, "SELECT system, score FROM rankings WHERE method = 'mean_adjusted' ORDER BY rank")
    # big, mid and small differ by 10 on every task they share, so the additive model fits them exactly and fills
    # small's ds1000 with 50 - 10 = 40: (80+75+60+40)/4 = 63.75, (70+65+50+30)/4 = 53.75, (60+55+40+20)/4 = 43.75
    # (the mean over the tasks small has would be 45); tiny's 99 is not ranked
    assert ranked.rows() == [("big", 63.75), ("mid", 53.75), ("small", 43.75)]
    assert sql(home, "SELECT system FROM rankings WHERE method = 'mean'").get_column("system").sort().to_list() == [
        "big", "mid"]  # the complete systems only


def test_only_task_selects_the_voters_and_is_recorded(home, capsys):
    args = ["--home", home, "rank", "--benchmark", "code", "--method", "mean", "--only-task", "humaneval",
            "--only-task", "m*", "--min-coverage", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "tiny (1/2)" in out  # scored on humaneval only of the two selected tasks
    [parameters] = sql(home, "SELECT parameters FROM snapshots").get_column("parameters").to_list()
    assert json.loads(parameters) == {"min_coverage": 1.0, "min_coverage_of": "voters", "only_task": ["humaneval", "m*"]}
    scores = sql(home, "SELECT system, score FROM rankings ORDER BY rank").rows()
    assert scores == [("big", 77.5), ("mid", 67.5), ("small", 57.5)]


def test_battles_without_time_stamps_rank_with_bradley_terry_and_elo_says_it_shuffles(tmp_path, capsys):
    home = str(tmp_path / "home")
    battles = tmp_path / "star.csv"
    battles.write_text("model_a,model_b,winner\n" + "ref,a,model_b\n" * 3 + "ref,b,model_a\n" * 3 + "a,b,model_a\n")
    assert main(["--home", home, "ingest", str(battles), "--benchmark", "star"]) == 0
    assert main(["--home", home, "rank", "--benchmark", "star"]) == 0
    assert "default methods for battles without time stamps: bradley_terry" in capsys.readouterr().out
    assert main(["--home", home, "rank", "--benchmark", "star", "--method", "elo"]) == 0
    assert "the battles have no time stamps, so their order is only the file's" in capsys.readouterr().out
    parameters = json.loads(sql(home, "SELECT parameters FROM snapshots WHERE method = 'elo'").item())
    assert (parameters["shuffle"], parameters["permutations"], parameters["seed"]) == (True, 20, 0)


def test_where_nobody_has_every_score_the_default_ranks_and_a_given_share_counts_every_voter(tmp_path, capsys):
    home = str(tmp_path / "home")
    table = tmp_path / "nobody.csv"  # 4 tasks, no model on all of them: a and b on 3, c on 2, d on 1
    table.write_text("model,t1,t2,t3,t4\na,90,80,70,\nb,85,75,,60\nc,80,70,,\nd,95,,,\n")
    assert main(["--home", home, "ingest", str(table), "--benchmark", "nb", "--system", "model",
                 "--score-columns", "t*"]) == 0

    def ranked(args: list[str]) -> tuple[list[str], str]:
        capsys.readouterr()
        assert main(["--home", home, "rank", "--benchmark", "nb", "--method", "mean_available", *args]) == 0
        out = capsys.readouterr().out
        rows = sql(home, "SELECT system FROM latest_rankings ORDER BY snapshot_id, system")
        return rows.get_column("system").to_list(), out

    # default: half of the 3 voters the best-covered system has, rounded up: 2; d (1 task) is listed, not ranked
    systems, out = ranked([])
    assert systems == ["a", "b", "c"]
    assert "--min-coverage 0.5 of the 3 voters the best-covered system has (of 4): at least 2" in out
    assert "d (1/4)" in out
    # given: 0.6 of the 4 voters is 2.4, so at least 3: c goes too
    capsys.readouterr()
    assert main(["--home", home, "rank", "--benchmark", "nb", "--method", "mean_available", "--min-coverage",
                 "0.6"]) == 0
    assert "--min-coverage 0.6 of the 4 voters: at least 3; not ranked: 2 system(s) scored on fewer: c (2/4), d (1/4)" \
        in capsys.readouterr().out
    given = sql(home, "SELECT r.system FROM rankings r JOIN snapshots s USING (snapshot_id) "
                      "WHERE s.parameters LIKE '%0.6%' ORDER BY r.system").get_column("system").to_list()
    assert given == ["a", "b"]
    # 0.8 of 4 is 4: nobody has it, which is said, not ranked as nothing
    assert main(["--home", home, "rank", "--benchmark", "nb", "--method", "mean_available", "--min-coverage",
                 "0.8"]) == 0
    assert "no system is (the best-covered one is scored on 3)" in capsys.readouterr().out
