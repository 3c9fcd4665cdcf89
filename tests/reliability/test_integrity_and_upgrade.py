"""Committed files are verified, and a home written by the previous main opens and is migrated (issue 25, cases 2 and Upgrades).

Before, a ranking.parquet replaced by hand (or by ``sql --output``) broke every query of
``rankings`` (schema mismatch) and ``export --snapshot`` crashed with a Polars traceback.
"""

import json
import os
from pathlib import Path

import polars as pl

from scorehouse.cli import main
from scorehouse.flows.reconcile import stale_runs
from scorehouse.warehouse.home_format import HOME_FORMAT
from scorehouse.warehouse.integrity import sha256_of
from scorehouse.warehouse.partitions import current_fingerprints
from scorehouse.warehouse.storage import Warehouse


def csv_rows(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()[1:]


def ranking_files(home: Path) -> list[Path]:
    return sorted(home.glob("snapshots/benchmark=*/snapshot=*/ranking.parquet"))


def test_a_home_of_the_previous_format_is_read_then_migrated_with_its_files_recorded(old_home: Path, capsys) -> None:
    assert not (old_home / "format.json").exists()
    rankings = {p.parent.name.removeprefix("snapshot="): pl.read_parquet(p) for p in ranking_files(old_home)}
    assert main(["--home", str(old_home), "sql", "SELECT snapshot_id, system, rank FROM latest_rankings",
                 "--format", "csv"]) == 0
    served = pl.DataFrame([r.split(",", 2) for r in csv_rows(capsys)], schema=["snapshot_id", "system", "rank"],
                          orient="row")
    assert sorted(served.get_column("snapshot_id").unique().to_list()) == sorted(rankings)
    assert served.height == sum(r.height for r in rankings.values())
    # the reader found the lock free, so it rebuilt the catalog in place and migrated the home
    assert json.loads((old_home / "format.json").read_text()) == {"format": HOME_FORMAT}
    recorded = pl.read_parquet(list((old_home / "content_hashes").glob("*/*.parquet")))
    files = sorted(str(p.relative_to(old_home)) for p in old_home.glob("s*/**/*.parquet")
                   if p.parts[len(old_home.parts)] in ("scores", "snapshots"))
    assert sorted(set(files) - set(recorded.get_column("file"))) == []
    for file, sha in recorded.select("file", "sha256").iter_rows():
        assert sha == sha256_of(old_home / file)


def test_a_home_of_a_newer_format_is_refused_by_name(old_home: Path, capsys) -> None:
    (old_home / "format.json").write_text(json.dumps({"format": HOME_FORMAT + 1}))
    assert main(["--home", str(old_home), "sql", "SELECT 1"]) == 2
    assert "newer than this scorehouse reads" in capsys.readouterr().err


def test_a_replaced_snapshot_file_is_named_left_out_and_breaks_nothing_else(old_home: Path, tmp_path: Path, capsys) -> None:
    assert main(["--home", str(old_home), "sql", "SELECT 1"]) == 0  # migrates: every file recorded
    damaged, *others = ranking_files(old_home)
    damaged_id = damaged.parent.name.removeprefix("snapshot=")
    pl.DataFrame({"x": [1]}).write_parquet(damaged)  # what 'sql --output' did
    capsys.readouterr()
    assert main(["--home", str(old_home), "sql", "SELECT DISTINCT snapshot_id FROM rankings", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert sorted(captured.out.splitlines()[1:]) == sorted(p.parent.name.removeprefix("snapshot=") for p in others)
    assert str(damaged) in captured.err and "left out of the views" in captured.err
    assert damaged.exists()  # quarantined in place, not deleted
    assert main(["--home", str(old_home), "sql", "SELECT file FROM damaged_files", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [str(damaged.relative_to(old_home))]
    code = main(["--home", str(old_home), "export", "--snapshot", damaged_id, "--format", "csv",
                 "--output", str(tmp_path / "x.csv")])
    assert code == 1
    err = capsys.readouterr().err
    assert str(damaged) in err and "damaged" in err and "Traceback" not in err


def test_a_file_changed_in_place_with_its_size_kept_is_found_again(old_home: Path, capsys) -> None:
    assert main(["--home", str(old_home), "sql", "SELECT 1"]) == 0
    target = ranking_files(old_home)[0]
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other bytes
    stat = target.stat()
    target.write_bytes(bytes(data))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    capsys.readouterr()
    assert main(["--home", str(old_home), "sql", "SELECT count(*) FROM rankings", "--format", "csv"]) == 0
    assert str(target) in capsys.readouterr().err


def test_the_snapshots_of_a_previous_home_still_match_its_inputs_so_the_upgrade_ranks_nothing_again(old_home: Path) -> None:
    """The fingerprints the previous code recorded equal those computed now (one DuckDB query over the coverage)."""
    manifests = pl.read_parquet(list((old_home / "snapshot_manifests").glob("*.parquet")))
    recorded = set(manifests.select("benchmark", "level", "input_fingerprint").iter_rows())
    assert len(recorded) == 1  # six methods ranked the same inputs
    warehouse = Warehouse(old_home)
    assert {(b, level, f) for (b, level), f in current_fingerprints(warehouse, ["superglue"]).items()} == recorded
    assert stale_runs(warehouse) == {}
