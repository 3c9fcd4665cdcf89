"""The SQL examples of the README run as written, through the CLI, and return the right values.

The expected values are independent facts about the data: counts and maxima
read from the raw leaderboard CSVs with the ``csv`` module, the leaderboards'
own published columns (GLUE ``Score``), and what the README states (the one
GLUE cell that reads ``NaN``, the weights of paired cells and of ``AX``).
"""

import csv
import json
import re
from itertools import combinations
from pathlib import Path

import pytest

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from tests.flows.conftest import REPO, SUPERGLUE, TABLES, VALUE

README = (REPO / "README.md").read_text()
EXAMPLES = re.findall(r"```sql\n(.*?)```", README, flags=re.S)
GLUE = TABLES / "leaderboards - GLUE.csv"
MISSING = ("-", "")


def test_the_readme_has_sql_examples():
    assert len(EXAMPLES) >= 5


def example(comment: str) -> str:
    """The README example whose first line (its comment) starts with ``-- comment``."""
    found = [q for q in EXAMPLES if q.startswith(f"-- {comment}")]
    assert len(found) == 1, f"no single README example '-- {comment}'"
    return found[0]


class Leaderboard:
    """A raw leaderboard CSV read with the csv module: rows, score columns, paired (``a/b``) columns."""

    def __init__(self, path, first_score_column: str) -> None:
        with open(path, newline="") as handle:
            self.rows = list(csv.DictReader(handle))
        header = list(self.rows[0])
        self.columns = header[header.index(first_score_column):]
        self.paired = {c for c in self.columns if any("/" in r[c] for r in self.rows)}

    def cells(self) -> int:
        """Scores it holds: a paired cell is two metrics."""
        return sum(2 if c in self.paired else 1 for _ in self.rows for c in self.columns)

    def missing(self) -> int:
        return sum(2 if c in self.paired else 1 for r in self.rows for c in self.columns if r[c].strip() in MISSING)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = str(tmp_path_factory.mktemp("readme") / "wh")
    ingest_flow([str(GLUE), str(SUPERGLUE), str(VALUE)], home=home)
    rank_flow(home=home)
    return home


def run_sql(home: str, query: str, tmp_path) -> list[dict]:
    out = tmp_path / "result.json"
    assert main(["--home", home, "sql", query, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("query", EXAMPLES, ids=[q.splitlines()[0][3:40] for q in EXAMPLES])
def test_readme_sql_example_runs(home, query, capsys):
    assert main(["--home", home, "sql", query, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) >= 2, f"no rows for:\n{query}"  # a header and at least one row


def test_what_is_in_the_warehouse_counts_the_raw_cells(home, tmp_path):
    rows = {r["benchmark"]: r for r in run_sql(home, example("What is in the warehouse"), tmp_path)}
    assert set(rows) == {"glue", "superglue", "value"}
    value, superglue, glue = Leaderboard(VALUE, "Mean-Rank"), Leaderboard(SUPERGLUE, "Score"), Leaderboard(GLUE, "Score")
    assert (rows["value"]["systems"], rows["value"]["scores"], rows["value"]["missing"]) == (
        len(value.rows), value.cells(), value.missing()) == (7, 91, 7)
    assert (rows["superglue"]["systems"], rows["superglue"]["scores"], rows["superglue"]["missing"]) == (
        len(superglue.rows), superglue.cells(), superglue.missing()) == (24, 360, 14)
    nan_cells = sum(1 for r in glue.rows for c in glue.columns if "NaN" in r[c])
    assert nan_cells == 1  # the README: "one GLUE cell reads NaN", quarantined rather than landed
    assert (rows["glue"]["systems"], rows["glue"]["scores"]) == (len(glue.rows), glue.cells() - nan_cells)


def test_metric_directions_ranked_columns_and_weights_of_glue(home, tmp_path):
    rows = run_sql(home, example("How each column of a leaderboard is read"), tmp_path)
    glue = Leaderboard(GLUE, "Score")
    assert {r["task"] for r in rows} == set(glue.columns)
    assert all(r["higher_is_better"] for r in rows)  # accuracy, F1, MCC, correlations: all higher is better
    unranked = {r["task"] for r in rows if not r["is_ranked"]}
    assert unranked == {"Score"}  # the leaderboard's own average is kept, never a voter
    weights = {(r["task"], r["metric"]): r["weight"] for r in rows}
    assert all(w == 0.5 for (task, _), w in weights.items() if task in glue.paired)  # halves of a paired cell
    assert sum(1 for task, _ in weights if task in glue.paired) == 2 * len(glue.paired)
    assert [w for (task, _), w in weights.items() if task == "AX"] == [0.0]


def test_per_task_ranks_put_the_raw_maximum_first(home, tmp_path):
    rows = run_sql(home, example("Per-task ranks"), tmp_path)
    superglue = Leaderboard(SUPERGLUE, "Score")
    single = [c for c in superglue.columns if c not in superglue.paired and c != "Score"]
    for task in single:
        scored = [(float(r[task]), r["Model"]) for r in superglue.rows if r[task].strip() not in MISSING]
        best = max(s for s, _ in scored)
        firsts = {r["system"] for r in rows if r["task"] == task and r["rank"] == 1}
        assert firsts == {m for s, m in scored if s == best}, task
        assert {r["n_ranked"] for r in rows if r["task"] == task} == {len(scored)}, task


def value_system(raw_name: str, names: set[str]) -> str:
    """The warehouse name of a raw VALUE name (the parser removes line breaks, markup and a trailing 'Paper')."""
    key = re.sub(r"\W", "", raw_name)
    matches = [n for n in names if key.startswith(re.sub(r"\W", "", n))]
    assert len(matches) == 1, (raw_name, matches)
    return matches[0]


def test_pairwise_counts_match_a_brute_force_count_of_the_raw_table(home, tmp_path):
    rows = run_sql(home, example("Who beats whom"), tmp_path)
    value = Leaderboard(VALUE, "Mean-Rank")
    tasks = [c for c in value.columns if c not in ("Mean-Rank", "Meta-Ave")]  # the leaderboard's own summaries
    names = {r["system_a"] for r in rows} | {r["system_b"] for r in rows}
    all_names = {x["system"] for x in run_sql(home, "SELECT DISTINCT system FROM scores WHERE benchmark = 'value'", tmp_path)}
    counts = {}
    for a, b in combinations(value.rows, 2):
        both = [t for t in tasks if a[t].strip() not in MISSING and b[t].strip() not in MISSING]
        wins = sum(float(a[t]) > float(b[t]) for t in both)
        ties = sum(float(a[t]) == float(b[t]) for t in both)
        name_a, name_b = value_system(a["Model"], all_names), value_system(b["Model"], all_names)
        counts[(name_a, name_b)] = (wins, ties, len(both) - wins - ties)
        counts[(name_b, name_a)] = (len(both) - wins - ties, ties, wins)
    assert names <= all_names and len(rows) == 10
    assert [(r["wins"], r["ties"], r["losses"]) for r in rows] == [counts[(r["system_a"], r["system_b"])] for r in rows]
    assert rows[0]["wins"] == max(w for w, _, _ in counts.values()) == len(tasks)


def test_the_latest_mean_ranking_of_glue_has_the_published_leader_first(home, tmp_path):
    rows = run_sql(home, example("The latest ranking of every method"), tmp_path)
    glue = Leaderboard(GLUE, "Score")
    published_leader = max((r for r in glue.rows if r["Score"] not in MISSING), key=lambda r: float(r["Score"]))["Model"]
    assert published_leader == "ERNIE"
    mean_first = [r["system"] for r in rows if r["method"] == "mean" and r["rank"] == 1]
    assert mean_first == [published_leader]
    # rank <= 3 of each default method for a leaderboard with missing scores (GLUE has a few): 1, 2, 3 unless tied
    assert {r["method"] for r in rows} == {"mean", "mean_adjusted", "borda_partial", "bradley_terry"}
    assert all(r["rank"] in (1, 2, 3) for r in rows)


def test_snapshots_example_lists_the_newest_existing_snapshots(home, tmp_path):
    rows = run_sql(home, example("Lineage and time travel"), tmp_path)
    assert len(rows) == 5
    assert [r["created_at"] for r in rows] == sorted((r["created_at"] for r in rows), reverse=True)
    for r in rows:
        folder = next(Path(home).glob(f"snapshots/benchmark={r['benchmark']}/snapshot={r['snapshot_id']}"))
        assert (folder / "ranking.parquet").exists()


def test_quarantine_example_holds_the_one_nan_cell_of_glue(home, tmp_path):
    rows = run_sql(home, example("What could not be used"), tmp_path)
    glue = Leaderboard(GLUE, "Score")
    nan = [(r["Model"], c) for r in glue.rows for c in glue.columns if "NaN" in r[c]]
    assert [(r["system"], r["task"], r["value"]) for r in rows] == [(nan[0][0], nan[0][1], "NaN")]
