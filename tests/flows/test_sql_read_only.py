"""``scorehouse sql`` cannot write, nor read outside the warehouse (issue 17, item 4)."""

from pathlib import Path

import pytest

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from tests.flows.conftest import VALUE


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("sql") / "home"
    ingest_flow([str(VALUE)], home=str(home))
    return home


def tree(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".lock"}


def refused(home: Path, query: str, capsys) -> str:  # noqa: ANN001
    before = tree(home)
    assert main(["--home", str(home), "sql", query]) == 1
    captured = capsys.readouterr()
    assert tree(home) == before
    assert "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    return captured.err


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("COPY (SELECT 1 AS a) TO '{outside}/out.csv'", "got a COPY statement"),
        ("COPY (SELECT 1 AS a) TO '{home}/metrics.parquet'", "got a COPY statement"),
        ("EXPORT DATABASE '{outside}/export'", "got a EXPORT statement"),
        ("ATTACH '{outside}/other.duckdb'", "got a ATTACH statement"),
        ("CREATE TABLE t AS SELECT 1 AS a", "got a CREATE statement"),
        ("SET enable_external_access = true", "got a SET statement"),
        ("SELECT 1 AS a; SELECT 2 AS b", "got 2 statements"),
        ("SELECT * FROM read_text('/etc/passwd')", "Permission Error"),
        ("SELECT * FROM read_csv('{home}/../outside.csv')", "Permission Error"),
    ],
)
def test_statements_that_write_or_read_outside_are_refused_in_one_line(home, tmp_path, capsys, query, reason):
    (home.parent / "outside.csv").write_text("a\n1\n")
    err = refused(home, query.format(home=home, outside=tmp_path), capsys)
    assert reason in err
    assert not any(tmp_path.iterdir())


def test_queries_over_the_views_still_work(home, capsys):
    assert main(["--home", str(home), "sql", "SELECT count(*) AS n FROM oriented_scores WHERE benchmark = 'value'",
                 "--format", "csv"]) == 0
    assert int(capsys.readouterr().out.split()[1]) > 0
    assert main(["--home", str(home), "sql", "WITH t AS (SELECT 2 AS a) SELECT a FROM t", "--format", "csv"]) == 0
    assert capsys.readouterr().out.split() == ["a", "2"]
