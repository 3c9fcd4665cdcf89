"""``sql --output`` and ``export --output`` never write inside the home (issue 25, case 2).

Before, ``sql "SELECT 1 AS x" --format parquet --output <a snapshot's ranking.parquet>`` replaced
the snapshot and broke every query of ``rankings``.
"""

from pathlib import Path

import polars as pl

from scorehouse.cli import main


def ranking_files(home: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(home.glob("snapshots/benchmark=*/snapshot=*/ranking.parquet"))}


def test_sql_output_into_a_snapshot_is_refused_and_changes_nothing(old_home: Path, capsys) -> None:
    before = ranking_files(old_home)
    target = next(iter(before))
    code = main(["--home", str(old_home), "sql", "SELECT 1 AS x", "--format", "parquet", "--output", str(target)])
    assert code == 2
    assert "inside the warehouse home" in capsys.readouterr().err
    assert ranking_files(old_home) == before
    assert main(["--home", str(old_home), "sql", "SELECT count(*) AS n FROM rankings", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == str(sum(pl.read_parquet(p).height for p in before))


def test_export_output_inside_the_home_or_through_a_link_to_it_is_refused(old_home: Path, tmp_path: Path, capsys) -> None:
    link = tmp_path / "link-to-home"
    link.symlink_to(old_home)
    for output in (old_home / "export.csv", link / "snapshot_manifests" / "x.parquet", old_home):
        code = main(["--home", str(old_home), "export", "--latest", "--format", "csv", "--output", str(output)])
        assert code == 2, output
        assert "inside the warehouse home" in capsys.readouterr().err
    assert not (old_home / "export.csv").exists() and not (old_home / "snapshot_manifests" / "x.parquet").exists()


def test_outputs_outside_the_home_are_written(old_home: Path, tmp_path: Path) -> None:
    export = tmp_path / "out" / "latest.csv"
    assert main(["--home", str(old_home), "export", "--latest", "--format", "csv", "--output", str(export)]) == 0
    assert pl.read_csv(export).height == sum(pl.read_parquet(p).height for p in ranking_files(old_home))
    table = tmp_path / "x.parquet"
    assert main(["--home", str(old_home), "sql", "SELECT 1 AS x", "--format", "parquet", "--output", str(table)]) == 0
    assert pl.read_parquet(table).to_dicts() == [{"x": 1}]
