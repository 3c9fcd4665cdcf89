"""Battle rankings are derived state too: a new battles load makes a battles series stale, and the next
``refresh`` ranks it again with its recorded methods, filters and both-bad rule (issue 25, case 1).

Before, the reconciliation skipped battles snapshots (their parameters hold the battle selection):
after ``ingest`` of more battles without ``rank``, every later ``refresh`` said "nothing new" and
served the rankings of the old battles for good.
"""

import json
from pathlib import Path

import polars as pl

from scorehouse.cli import main
from scorehouse.flows.reconcile import stale_battle_runs
from scorehouse.transforms.synth_battles import synth_battles
from scorehouse.warehouse.queries import battle_loads
from scorehouse.warehouse.storage import Warehouse

from tests.reliability.rankings import served_rankings

RANK = ["rank", "--benchmark", "arena", "--method", "bradley_terry", "--language", "English", "--bothbad", "drop"]


def battles_file(folder: Path, seed: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    synth_battles(400, n_systems=5, seed=seed).battles.write_parquet(folder / f"battles-{seed}.parquet")
    return folder / f"battles-{seed}.parquet"


def kept(files: list[Path]) -> int:
    """The battles the selection keeps, counted on the files: English, not a both-bad tie."""
    battles = pl.concat([pl.read_parquet(f) for f in files])
    return battles.filter((pl.col("language") == "English") & (pl.col("winner") != "tie (bothbad)")).height


def english_series(home: Path) -> pl.DataFrame:
    manifests = pl.concat([pl.read_parquet(p) for p in home.glob("snapshot_manifests/*.parquet")])
    return manifests.filter(pl.col("parameters") == json.dumps(
        {"battles": {"bothbad": "drop", "language": ["English"]}}, separators=(",", ":")))


def test_refresh_ranks_again_a_battles_series_a_new_battles_load_made_stale(tmp_path: Path) -> None:
    first, second = battles_file(tmp_path / "dumps", 3), battles_file(tmp_path / "dumps", 4)
    home = tmp_path / "home"
    assert main(["--home", str(home), "ingest", str(first), "--benchmark", "arena"]) == 0
    assert main(["--home", str(home), *RANK]) == 0
    assert english_series(home).get_column("n_voters").to_list() == [kept([first])]
    assert main(["--home", str(home), "ingest", str(second), "--benchmark", "arena"]) == 0  # committed, never ranked

    warehouse = Warehouse(home)
    stale = stale_battle_runs(warehouse, battle_loads(warehouse))
    assert [(benchmark, selection.parameters()) for (benchmark, _), (selection, _) in stale.items()] == [
        ("arena", {"language": ["English"], "bothbad": "drop"})]
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    assert main(["--home", str(home), "refresh", "--inbox", str(inbox)]) == 0
    assert stale_battle_runs(warehouse, battle_loads(warehouse)) == {}
    series = english_series(home).sort("created_at")
    assert series.get_column("n_voters").to_list() == [kept([first]), kept([first, second])]

    uninterrupted = tmp_path / "uninterrupted"
    assert main(["--home", str(uninterrupted), "ingest", str(first), str(second), "--benchmark", "arena"]) == 0
    assert main(["--home", str(uninterrupted), *RANK]) == 0
    assert served_rankings(home).equals(served_rankings(uninterrupted))
