"""Rankings are derived state: ``refresh`` and ``rank`` re-rank what a crash left stale (issue 25, case 1).

Before, a refresh killed after the load committed left the old rankings served for good:
every later refresh said "nothing new".  Here the crash is the plain ``ingest`` of a corrected
file (a load committed, no rank after it); the kill test (test_random_kill_refresh.py) kills real runs.
"""

import shutil
from pathlib import Path

from scorehouse.cli import main
from scorehouse.flows.reconcile import stale_runs
from scorehouse.warehouse.storage import Warehouse

from tests.reliability.conftest import HOME_FORMAT_1
from tests.reliability.rankings import SUPERGLUE, corrected_superglue, served_rankings


def uninterrupted(tmp_path: Path) -> Path:
    """A copy of the old home where the corrected leaderboard went through one refresh that nothing stopped."""
    home = tmp_path / "uninterrupted"
    shutil.copytree(HOME_FORMAT_1, home)
    inbox = tmp_path / "uninterrupted-inbox"
    inbox.mkdir()
    shutil.copyfile(corrected_superglue(tmp_path / "corrected-copy"), inbox / SUPERGLUE.name)
    assert main(["--home", str(home), "refresh", "--inbox", str(inbox)]) == 0
    return home


def test_an_up_to_date_home_of_the_old_format_has_nothing_stale(old_home: Path, tmp_path: Path, capsys) -> None:
    assert stale_runs(Warehouse(old_home)) == {}
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert main(["--home", str(old_home), "refresh", "--inbox", str(inbox)]) == 0
    assert "nothing new" in capsys.readouterr().out


def test_refresh_with_nothing_new_ranks_the_benchmark_a_committed_load_made_stale(old_home: Path, tmp_path: Path) -> None:
    corrected = corrected_superglue(tmp_path / "dumps")
    assert main(["--home", str(old_home), "ingest", str(corrected)]) == 0  # committed, never ranked
    stale = stale_runs(Warehouse(old_home))
    assert list(stale) == [("superglue", "task")]
    assert len(stale["superglue", "task"]) == len(list((old_home / "snapshot_manifests").glob("*.parquet")))
    served = served_rankings(old_home)
    assert served.filter(method="mean", rank=1).get_column("system").to_list() == ["ERNIE 3.0"]

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert main(["--home", str(old_home), "refresh", "--inbox", str(inbox)]) == 0
    assert stale_runs(Warehouse(old_home)) == {}
    fixed = served_rankings(old_home)
    assert "ERNIE 3.0" not in fixed.filter(method="mean", rank=1).get_column("system").to_list()
    assert fixed.equals(served_rankings(uninterrupted(tmp_path)))


def test_rank_of_one_benchmark_reconciles_that_benchmark_only(old_home: Path, tmp_path: Path) -> None:
    value = Path(__file__).resolve().parents[2] / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - VALUE.csv"
    assert main(["--home", str(old_home), "ingest", str(value)]) == 0
    assert main(["--home", str(old_home), "rank", "--benchmark", "value"]) == 0
    value_copy = tmp_path / "value" / value.name
    value_copy.parent.mkdir()
    value_copy.write_text(value.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # new bytes, same scores
    corrected = corrected_superglue(tmp_path / "dumps")
    assert main(["--home", str(old_home), "ingest", str(corrected), str(value_copy)]) == 0
    assert set(stale_runs(Warehouse(old_home))) == {("superglue", "task"), ("value", "task")}
    assert main(["--home", str(old_home), "rank", "--benchmark", "value"]) == 0
    assert set(stale_runs(Warehouse(old_home))) == {("superglue", "task")}
