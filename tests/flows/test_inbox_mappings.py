"""Inbox mappings: a battles file with a numeric judgement and a user table flow through a scheduled inbox, read by
a sidecar NAME.scorehouse.toml or the inbox's scorehouse.toml; an unusable mapping rejects its file, saying why."""

from pathlib import Path

import pytest

from scorehouse.cli import main
from tests.flows.conftest import sql
from scorehouse.transforms.parsers.mapping import MappingError, file_settings



@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "prefs.csv").write_text("generator_1,generator_2,preference\nA,B,1.1\nB,C,1.5\nC,A,1.9\n")
    (inbox / "prefs.csv.scorehouse.toml").write_text(
        'benchmark = "judged"\n[columns]\nmodel_a = "generator_1"\nmodel_b = "generator_2"\n'
        'winner = "preference"\nwinner_scale = "1,2"\n')
    (inbox / "table_errors.csv").write_text("model,err_a,err_b,size\nx,0.1,0.3,7\ny,0.2,0.1,9\n")
    (inbox / "scorehouse.toml").write_text(
        '[[files]]\nmatch = "table_*.csv"\nbenchmark = "errors"\nhigher_is_better = false\n'
        '[files.columns]\nsystem = "model"\nscore_columns = ["err_a", "err_b"]\n')
    return inbox


def test_a_battles_file_and_a_user_table_flow_through_the_inbox_by_their_mappings(tmp_path, inbox):
    home = str(tmp_path / "home")
    assert main(["--home", home, "refresh", "--inbox", str(inbox)]) == 0
    battles = sql(home, "SELECT model_a, model_b, winner, outcome FROM battles ORDER BY model_a").rows()
    assert battles == [("A", "B", "model_a", pytest.approx(0.9)), ("B", "C", "tie", 0.5),
                       ("C", "A", "model_b", pytest.approx(0.1))]
    scores = sql(home, "SELECT task, system, score FROM scores ORDER BY task, system").rows()
    assert scores == [("err_a", "x", 0.1), ("err_a", "y", 0.2), ("err_b", "x", 0.3), ("err_b", "y", 0.1)]  # not size
    assert set(sql(home, "SELECT DISTINCT higher_is_better FROM metrics WHERE benchmark = 'errors'")
               .get_column("higher_is_better")) == {False}
    assert sorted(p.name for p in (inbox / "processed").iterdir()) == [
        "prefs.csv", "prefs.csv.scorehouse.toml", "table_errors.csv"]
    assert sorted(p.name for p in inbox.iterdir() if p.is_file() and not p.name.startswith(".")) == ["scorehouse.toml"]


def test_a_file_whose_mapping_cannot_be_used_is_rejected_with_the_reason(tmp_path, inbox, capsys):
    (inbox / "prefs.csv.scorehouse.toml").write_text('benchmark = "judged"\nwinner_column = "preference"\n')
    assert main(["--home", str(tmp_path / "home"), "refresh", "--inbox", str(inbox)]) == 1
    said = capsys.readouterr()
    assert "prefs.csv.scorehouse.toml: unknown key(s) ['winner_column']" in said.out + said.err
    assert sorted(p.name for p in (inbox / "rejected").iterdir()) == ["prefs.csv", "prefs.csv.scorehouse.toml"]


@pytest.mark.parametrize(("table", "message"), [
    ({"columns": {"system": "m", "model_a": "x"}}, "cannot be read from one file"),
    ({"format": "wmt-da", "columns": {"system": "m", "score": "s"}}, "does not read the columns given"),
    ({"json_path": "{task}"}, "name the system once"),
    ({"columns": {"system": ["m"]}}, "give the column's name as text"),
])
def test_mappings_that_do_not_fit_name_the_file_and_the_problem(table, message):
    with pytest.raises(MappingError, match=message) as caught:
        file_settings(Path("inbox/x.csv.scorehouse.toml"), table)
    assert str(caught.value).startswith("inbox/x.csv.scorehouse.toml: ")


def test_a_mapping_gives_the_options_ingest_would_use():
    settings = file_settings(Path("s.toml"), {"benchmark": "b", "json_path": "{system}.x", "higher_is_better": True})
    assert (settings.format, settings.benchmark, settings.mapping, settings.higher_is_better) == (
        "json-path", "b", {"json_path": "{system}.x"}, True)
    assert file_settings(Path("s.toml"), {"format": "battles", "benchmark": "b"}).mapping is None
