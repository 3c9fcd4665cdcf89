"""Battles end to end: the CLI ingests them into their own table beside scores, quarantines bad ones,
re-ingests as a no-op, and :func:`warehouse.queries.read_battles` reads them back filtered and in order."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scorehouse.cli import main
from tests.flows.conftest import SUPERGLUE
from scorehouse.warehouse.queries import NoBattlesError, read_battles, warehouse_summary
from scorehouse.warehouse.storage import Warehouse

FIXTURES = Path(__file__).resolve().parents[1] / "transforms" / "fixtures" / "battles"
MAPPED_FLAGS = ["--model-a", "left", "--model-b", "right", "--winner", "outcome", "--judge", "rater",
                "--instance", "prompt", "--turn", "round", "--language", "lang", "--category", "topic", "--tstamp", "when"]


def sql(home: str, query: str, tmp_path: Path) -> list[dict]:
    out = tmp_path / "q.json"
    assert main(["--home", home, "sql", query, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> str:
    """SuperGLUE's scores, and battles (good, bad and mapped) in benchmark superglue and in arena."""
    home = str(tmp_path_factory.mktemp("battles") / "warehouse")
    assert main(["--home", home, "ingest", str(SUPERGLUE)]) == 0
    assert main(["--home", home, "ingest", str(FIXTURES / "battles.csv"), str(FIXTURES / "battles_bad.csv"),
                 "--benchmark", "superglue"]) == 0
    assert main(["--home", home, "ingest", str(FIXTURES / "mapped.csv"), "--format", "battles", "--benchmark", "arena",
                 *MAPPED_FLAGS]) == 0
    return home


def test_the_battles_view_and_the_quarantine(home, tmp_path):
    counts = sql(home, "SELECT benchmark, winner, count(*) AS n FROM battles GROUP BY ALL ORDER BY ALL", tmp_path)
    # battles.csv: model_a, tie (bothbad), model_b; battles_bad.csv: one usable (model_b); mapped.csv: a, tie, b
    assert [tuple(r.values()) for r in counts] == [
        ("arena", "model_a", 1), ("arena", "model_b", 1), ("arena", "tie", 1),
        ("superglue", "model_a", 1), ("superglue", "model_b", 2), ("superglue", "tie (bothbad)", 1),
    ]
    reasons = sql(home, "SELECT file, line, reason FROM battles_quarantine ORDER BY line", tmp_path)
    assert [r["line"] for r in reasons] == [2, 3, 4, 5, 6, 7, 8]
    assert {Path(r["file"]).name for r in reasons} == {"battles_bad.csv"}
    manifest = sql(home, "SELECT rows_in, rows_landed, rows_quarantined FROM loads WHERE file_name LIKE '%battles_bad.csv'",
                   tmp_path)
    assert manifest == [{"rows_in": 8, "rows_landed": 1, "rows_quarantined": 7}]


def test_battles_leave_the_scores_and_their_listing_alone(home, tmp_path):
    summary = warehouse_summary(Warehouse(home))
    assert summary.select("benchmark", "level").rows() == [("superglue", "task")]
    assert sql(home, "SELECT count(*) AS n FROM quarantine", tmp_path) == [{"n": 0}]
    assert main(["--home", home, "rank", "--level", "task", "--method", "borda"]) == 0
    assert [r["benchmark"] for r in sql(home, "SELECT DISTINCT benchmark FROM snapshots", tmp_path)] == ["superglue"]
    assert main(["--home", home, "snapshots"]) == 0


def test_reingesting_the_same_battles_is_a_no_op_and_another_mapping_is_another_load(home, tmp_path, capsys):
    before = sorted(p.name for p in (Path(home) / "loads").iterdir())
    assert main(["--home", home, "ingest", str(FIXTURES / "battles.csv"), "--benchmark", "superglue"]) == 0
    assert main(["--home", home, "ingest", str(FIXTURES / "mapped.csv"), "--format", "battles", "--benchmark", "arena",
                 *MAPPED_FLAGS]) == 0
    assert capsys.readouterr().out.count("0 file(s) loaded, 1 unchanged") == 2
    assert sorted(p.name for p in (Path(home) / "loads").iterdir()) == before
    # judge read from another column: the same bytes with another mapping replace the load of that source
    swapped = [*MAPPED_FLAGS[:6], "--judge", "topic", *MAPPED_FLAGS[8:]]
    assert main(["--home", home, "ingest", str(FIXTURES / "mapped.csv"), "--format", "battles", "--benchmark", "arena",
                 *swapped]) == 0
    judges = sql(home, "SELECT judge FROM battles WHERE benchmark = 'arena' ORDER BY source_row", tmp_path)
    assert [r["judge"] for r in judges] == ["coding", "writing", "coding"]
    capsys.readouterr()
    assert main(["--home", home, "ingest", str(FIXTURES / "mapped.csv"), "--format", "battles", "--benchmark", "arena",
                 *MAPPED_FLAGS]) == 0  # back to the first mapping: a revert, made current again
    assert "1 file(s) loaded" in capsys.readouterr().out
    judges = sql(home, "SELECT judge FROM battles WHERE benchmark = 'arena' ORDER BY source_row", tmp_path)
    assert [r["judge"] for r in judges] == ["alice", "bob", "alice"]


def test_battle_columns_read_battles_and_no_other_format(tmp_path, capsys):
    home = str(tmp_path / "h")
    assert main(["--home", home, "ingest", str(SUPERGLUE), "--format", "votenrank-leaderboard", "--model-a", "x"]) == 2
    assert "read files as format battles, not 'votenrank-leaderboard'" in capsys.readouterr().err
    assert main(["--home", home, "ingest", str(SUPERGLUE), "--model-a", "x", "--system", "y"]) == 2
    assert "cannot be read from the same files" in capsys.readouterr().err
    assert main(["--home", home, "ingest", str(SUPERGLUE), "--benchmark", "b", "--model-a", "x"]) == 1
    assert "'x' (as model_a)" in capsys.readouterr().err  # read as battles: the column is not in the file


def test_read_battles_filters_and_order(home):
    everything = read_battles(home, "superglue")
    # by tstamp (battles.csv line 2 at 12:00:00.25, battles_bad.csv line 9 at 12:00:06, line 3 at 12:01:40), untimed last
    assert everything.select("model_a", "model_b", "winner").rows() == [
        ("gpt-4", "claude-2", "model_a"), ("gpt-4", "claude-2", "model_b"),
        ("claude-2", "llama-2-70b", "tie (bothbad)"), ("llama-2-70b", "gpt-4", "model_b"),
    ]
    assert everything.columns == ["model_a", "model_b", "winner", "outcome", "tstamp", "judge", "category", "language",
                                  "instance"]
    assert read_battles(home, "superglue", judge="gpt-4-judge").get_column("instance").to_list() == ["q3"]
    assert read_battles(home, "superglue", judge=["human", "gpt-4-judge"]).height == 4
    assert read_battles(home, "superglue", category="math", language="German").get_column("instance").to_list() == ["q2"]
    window = read_battles(home, "superglue", since=datetime(2024, 5, 1, 12, 0, 1, tzinfo=UTC), until="2024-05-01T12:01:40")
    assert window.get_column("instance").to_list() == ["q8"]  # until is exclusive; untimed battles are in no window
    arena = read_battles(Warehouse(home), "arena", since="2026-01-01", until="2026-02-01")
    assert arena.get_column("instance").to_list() == ["p1", "p3"]  # both on 2026-01-05 10:00 UTC, in file order
    with pytest.raises(NoBattlesError, match="'glue' has no battles; benchmarks with battles: arena, superglue"):
        read_battles(home, "glue")


def test_numeric_judgements_enter_with_their_scale_and_an_all_quarantined_file_fails(tmp_path, capsys):
    """805 rows quarantined as 'unknown winner' used to print "1 file(s) loaded" and exit 0 (issue 26)."""
    dump = tmp_path / "judged.csv"
    dump.write_text("model_a,model_b,preference\nA,B,1.0000001827\nB,C,1.9\nA,C,1.5\nC,A,2\n")
    home = str(tmp_path / "home")
    assert main(["--home", home, "ingest", str(dump), "--benchmark", "judged", "--winner", "preference"]) == 1
    said = capsys.readouterr()
    assert "every one of its 4 row(s) was quarantined: unknown winner (4)" in said.out + said.err
    assert main(["--home", home, "ingest", str(dump), "--benchmark", "judged", "--winner", "preference"]) == 1
    said = capsys.readouterr()  # the same bytes again: unchanged, and still a failure
    assert "already loaded, and every one of its 4 row(s) was quarantined" in said.out + said.err
    args = ["--home", home, "ingest", str(dump), "--benchmark", "judged", "--winner", "preference",
            "--winner-scale", "1,2", "--tie-band", "0.05"]
    assert main(args) == 0
    assert "1 file(s) loaded" in capsys.readouterr().out
    from scorehouse.warehouse.catalog import connect, query_frame

    with connect(Warehouse(home)) as con:
        landed = query_frame(con, "SELECT model_a, winner, outcome FROM battles ORDER BY model_a, outcome").rows()
    assert landed == [("A", "tie", 0.5), ("A", "model_a", pytest.approx(0.9999998173)),
                      ("B", "model_b", pytest.approx(0.1)), ("C", "model_b", 0.0)]
