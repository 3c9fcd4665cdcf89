"""A home whose path holds glob characters works like any other (issue 25, case 3).

Before, ``ingest`` into ``runs [2024]`` committed a load, and that and every later command failed
with "No files found that match the pattern" (DuckDB and Polars read the folder name as a glob);
into ``runs?``, the catalog build failed: DuckDB put its write-ahead log at ``runs.wal?/catalog.duckdb``.
"""

from pathlib import Path

import polars as pl

from scorehouse.cli import main

from tests.reliability.rankings import SUPERGLUE


def test_ingest_rank_query_and_export_in_a_home_named_with_glob_characters(tmp_path: Path, capsys) -> None:
    home = tmp_path / "runs [2024] {a,b} * ?"  # DuckDB reads "?" in a database path as the start of options
    assert main(["--home", str(home), "ingest", str(SUPERGLUE)]) == 0
    assert main(["--home", str(home), "rank"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "sql", "SELECT count(*) AS n FROM scores", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == str(pl.read_parquet(next(home.glob("scores/*/*/*.parquet")), glob=False).height)
    assert main(["--home", str(home), "sql", "SELECT DISTINCT method FROM latest_rankings", "--format", "csv"]) == 0
    methods = set(capsys.readouterr().out.splitlines()[1:])
    assert methods == {pl.read_parquet(p, glob=False).item(0, "method") for p in home.glob("snapshot_manifests/*.parquet")}
    export = tmp_path / "latest.csv"
    assert main(["--home", str(home), "export", "--latest", "--format", "csv", "--output", str(export)]) == 0
    assert pl.read_csv(export).height == sum(pl.read_parquet(p, glob=False).height for p in home.glob("snapshots/*/*/ranking.parquet"))
    assert main(["--home", str(home), "snapshots"]) == 0


def test_the_escaped_home_confines_sql_as_before(tmp_path: Path, capsys) -> None:
    home = tmp_path / "runs [2024]?"
    assert main(["--home", str(home), "ingest", str(SUPERGLUE)]) == 0
    outside = tmp_path / "outside.csv"
    outside.write_text("secret\n1\n")
    capsys.readouterr()
    assert main(["--home", str(home), "sql", f"SELECT * FROM read_csv('{outside}')"]) == 1
    assert "Permission Error" in capsys.readouterr().err
