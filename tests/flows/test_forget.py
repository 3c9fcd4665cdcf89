"""``scorehouse forget``: a mistaken load leaves the current view and the rankings, its history and the old snapshots
stay, and ingesting the file again brings it back."""

from pathlib import Path

import pytest

from scorehouse.cli import main
from tests.flows.conftest import sql



@pytest.fixture
def home(tmp_path: Path) -> tuple[str, Path]:
    """A benchmark from two files: the real results, and a mistaken one adding a system 'oops'."""
    home = str(tmp_path / "home")
    (tmp_path / "results.csv").write_text("model,a,b\nbig,80,70\nsmall,60,50\n")
    (tmp_path / "mistake.csv").write_text("model,a,b\noops,99,99\n")
    for name in ("results.csv", "mistake.csv"):
        assert main(["--home", home, "ingest", str(tmp_path / name), "--benchmark", "lb", "--system", "model",
                     "--score-columns", "*"]) == 0
    assert main(["--home", home, "rank", "--benchmark", "lb", "--method", "mean"]) == 0
    return home, tmp_path / "mistake.csv"


def test_a_forgotten_load_leaves_the_current_view_and_the_rankings_and_its_history_stays(home, capsys):
    home, mistake = home
    load = sql(home, f"SELECT load_id FROM loads WHERE file_name = '{mistake}'").item()
    old = sql(home, "SELECT snapshot_id FROM snapshots").item()
    capsys.readouterr()
    assert main(["--home", home, "forget", load]) == 0
    out = capsys.readouterr().out
    assert f"forgot load {load} ({mistake}; lb; 2 row(s))" in out
    assert sql(home, "SELECT DISTINCT system FROM scores ORDER BY 1").get_column("system").to_list() == ["big", "small"]
    assert sql(home, f"SELECT count(*) FROM scores_history WHERE load_id = '{load}'").item() == 2
    latest = sql(home, "SELECT system, rank FROM latest_rankings WHERE method = 'mean' ORDER BY rank").rows()
    assert latest == [("big", 1), ("small", 2)]  # re-ranked with the defaults: mean is among them
    assert sql(home, f"SELECT count(*) FROM rankings WHERE snapshot_id = '{old}' AND system = 'oops'").item() == 1

    assert main(["--home", home, "ingest", str(mistake), "--benchmark", "lb", "--system", "model",
                 "--score-columns", "*"]) == 0  # the same file again: current again
    assert "oops" in sql(home, "SELECT DISTINCT system FROM scores").get_column("system").to_list()


def test_forgetting_a_benchmark_retracts_all_its_loads(home, capsys):
    home, _ = home
    assert main(["--home", home, "forget", "--benchmark", "lb"]) == 0
    assert "no current input left for lb: not ranked again" in capsys.readouterr().out
    assert sql(home, "SELECT count(*) FROM scores").item() == 0
    assert sql(home, "SELECT count(*) FROM scores_history").item() == 6


@pytest.mark.parametrize(("args", "message"), [
    (["nosuchload"], "nosuchload (no such load)"),
    ([], "give the load ids to forget, or --benchmark"),
    (["--benchmark", "other"], "no current load scores benchmark 'other'"),
])
def test_what_names_no_current_load_is_a_usage_error(home, args, message, capsys):
    home, _ = home
    assert main(["--home", home, "forget", *args]) == 2
    assert message in capsys.readouterr().err


def test_forget_ranks_every_latest_series_again_as_recorded_on_its_own_voters(home, capsys):
    home, mistake = home
    for args in (["--method", "minimax"], ["--method", "mean", "--only-task", "a"], ["--min-coverage", "1"]):
        assert main(["--home", home, "rank", "--benchmark", "lb", *args]) == 0
    series = sql(home, "SELECT method, parameters FROM latest_snapshots ORDER BY ALL").rows()
    load = sql(home, f"SELECT load_id FROM loads WHERE file_name = '{mistake}'").item()
    assert main(["--home", home, "forget", load]) == 0
    latest = sql(home, "SELECT method, parameters, load_ids, snapshot_id FROM latest_snapshots ORDER BY ALL")
    # every series of before is ranked again (beside the defaults, as the reconciliation ranks): none ranks the
    # forgotten load
    assert set(series) <= {(m, p) for m, p, _, _ in latest.rows()}
    assert all(load not in ids for _, _, ids, _ in latest.rows())
    assert "oops" not in sql(home, "SELECT DISTINCT system FROM latest_rankings").get_column("system").to_list()
    # the selection's series ranks task a only, as it was asked: big 80, small 60
    [selected] = [s for m, p, _, s in latest.rows() if '"only_task"' in p]
    scores = sql(home, f"SELECT system, score FROM rankings WHERE snapshot_id = '{selected}' ORDER BY rank").rows()
    assert scores == [("big", 80.0), ("small", 60.0)]


def test_a_benchmark_left_without_a_current_load_has_no_latest_rankings_and_its_history_stays(home):
    home, _ = home
    before = sql(home, "SELECT count(*) FROM rankings").item()
    assert main(["--home", home, "forget", "--benchmark", "lb"]) == 0
    assert sql(home, "SELECT count(*) FROM latest_snapshots WHERE benchmark = 'lb'").item() == 0
    assert sql(home, "SELECT count(*) FROM latest_rankings WHERE benchmark = 'lb'").item() == 0
    assert sql(home, "SELECT count(*) FROM rankings").item() == before  # the old snapshots stay
    # ingesting again brings the benchmark back, and ranking it makes its rankings current again
    ingest = ["--benchmark", "lb", "--system", "model", "--score-columns", "*"]
    assert main(["--home", home, "ingest", str(Path(home).parent / "results.csv"), *ingest]) == 0
    assert main(["--home", home, "rank", "--benchmark", "lb"]) == 0
    assert sql(home, "SELECT count(*) FROM latest_rankings WHERE benchmark = 'lb'").item() > 0
