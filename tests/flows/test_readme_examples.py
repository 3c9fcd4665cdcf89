"""The SQL examples of the README run as written, through the CLI, and return rows."""

import re

import pytest

from flows.cli import main
from flows.ingest import ingest_flow
from flows.rank import rank_flow
from tests.flows.conftest import REPO, SUPERGLUE, TABLES, VALUE

README = (REPO / "README.md").read_text()
EXAMPLES = re.findall(r"```sql\n(.*?)```", README, flags=re.S)


def test_the_readme_has_sql_examples():
    assert len(EXAMPLES) >= 5


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = str(tmp_path_factory.mktemp("readme") / "wh")
    ingest_flow([str(TABLES / "leaderboards - GLUE.csv"), str(SUPERGLUE), str(VALUE)], home=home)
    rank_flow(home=home)
    return home


@pytest.mark.parametrize("query", EXAMPLES, ids=[q.splitlines()[0][3:40] for q in EXAMPLES])
def test_readme_sql_example_runs(home, query, capsys):
    assert main(["--home", home, "sql", query, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) >= 2, f"no rows for:\n{query}"  # a header and at least one row
