"""Arena snapshots are derived state too: a new battles load makes an arena series stale, and the next
``refresh`` runs ``arena`` again with its recorded filters, both-bad rule, anchor, resamples and seed
(issue 25, case 1).

Before, the reconciliation skipped the arena snapshots: after ``ingest`` of more battles, the latest
arena leaderboard stayed the one of the old battles until someone ran ``arena`` again.
"""

from pathlib import Path

import polars as pl

from scorehouse.flows.reconcile import stale_arenas
from scorehouse.warehouse.queries import battle_loads
from scorehouse.warehouse.snapshots import read_arena
from scorehouse.warehouse.storage import Warehouse

from tests.reliability.test_battle_rankings_follow import battles_file, kept
from tests.reliability.test_readers_never_wait import scorehouse

ARENA = ["arena", "--benchmark", "arena", "--language", "English", "--bothbad", "drop", "--anchor", "model-001",
         "--resamples", "40", "--seed", "11"]


def ok(home: Path, *args: str) -> str:
    """Run ``scorehouse --home HOME ARGS`` in a process of its own; its output, once it exited 0."""
    done = scorehouse(home, *args, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def arena_series(home: Path) -> pl.DataFrame:
    """The manifests of the arena snapshots of benchmark ``arena``, oldest first."""
    manifests = pl.concat([pl.read_parquet(p) for p in home.glob("snapshot_manifests/*.parquet")])
    return manifests.filter(method="arena", benchmark="arena").sort("created_at")


def stored(home: Path, snapshot: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ranking file and the leaderboard an arena snapshot stored."""
    folder = home / "snapshots" / "benchmark=arena" / f"snapshot={snapshot}"
    return pl.read_parquet(folder / "ranking.parquet"), read_arena(Warehouse(home), "arena", snapshot)


def test_refresh_runs_arena_again_with_its_recorded_settings_once_new_battles_landed(tmp_path: Path) -> None:
    first, second = battles_file(tmp_path / "dumps", 3), battles_file(tmp_path / "dumps", 4)
    other = battles_file(tmp_path / "other", 5)
    home = tmp_path / "home"
    ok(home, "ingest", str(first), "--benchmark", "arena")
    ok(home, "ingest", str(other), "--benchmark", "other")
    ok(home, *ARENA)
    assert arena_series(home).get_column("n_voters").to_list() == [kept([first])]
    ok(home, "ingest", str(second), "--benchmark", "arena")  # committed, arena never run on it
    warehouse = Warehouse(home)
    stale = stale_arenas(warehouse, battle_loads(warehouse))
    assert [(benchmark, s.selection.parameters(), s.anchor, s.n_resamples, s.seed) for benchmark, s in stale] == [
        ("arena", {"language": ["English"], "bothbad": "drop"}, "model-001", 40, 11)]  # ARENA's options

    ok(home, "rank", "--benchmark", "other")  # reconciles "other" only
    assert arena_series(home).get_column("n_voters").to_list() == [kept([first])]

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    said = ok(home, "refresh", "--inbox", str(inbox))
    assert "nothing new" not in said
    assert "arena (battles level): 1 method(s), 1 new snapshot(s)" in said
    assert 'arena [anchor="model-001", battles={"language": ["English"], "bothbad": "drop"}, level=0.95, ' \
           'n_resamples=40, seed=11]' in said  # the series, named by its recorded settings
    series = arena_series(home)
    assert series.get_column("n_voters").to_list() == [kept([first]), kept([first, second])]

    fresh = tmp_path / "fresh"
    ok(fresh, "ingest", str(first), str(second), "--benchmark", "arena")
    ok(fresh, *ARENA)
    once = arena_series(fresh)
    assert once.height == 1
    latest = series.row(-1, named=True)
    assert latest["parameters"] == once.get_column("parameters")[0]
    ranking, leaderboard = stored(home, latest["snapshot_id"])
    fresh_ranking, fresh_leaderboard = stored(fresh, once.get_column("snapshot_id")[0])
    assert ranking.equals(fresh_ranking)
    assert leaderboard.equals(fresh_leaderboard)  # the intervals: the same resamples and seed

    assert stale_arenas(warehouse, battle_loads(warehouse)) == []
    assert "nothing new" in ok(home, "refresh", "--inbox", str(inbox))
