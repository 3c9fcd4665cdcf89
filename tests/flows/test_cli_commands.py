"""rank, snapshots, diff, analyze and run through the CLI's ``main()`` on small real leaderboards.

Expected values come from the raw VALUE CSV read with the ``csv`` module (the
leaderboard's own published ``Meta-Ave``, means and Borda points recomputed
by hand) and from scipy, never from the code under test.
"""

import csv
import re
import subprocess
import sys

import pytest
from scipy.stats import kendalltau

from scorehouse.flows import run as run_module
from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from tests.flows.conftest import REPO, VALUE
from scorehouse.transforms.catalog import MetricRulesError

SUMMARIES = ("Mean-Rank", "Meta-Ave")  # VALUE's own summary columns: kept, never voters


def value_rows(path=VALUE) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def task_columns(rows: list[dict]) -> list[str]:
    return [c for c in list(rows[0])[1:] if c not in SUMMARIES]


def complete(rows: list[dict]) -> list[dict]:
    """The systems scored on every task (the human baseline is not): what mean and borda rank."""
    return [r for r in rows if all(r[t] not in ("-", "") for t in task_columns(rows))]


def means(rows: list[dict]) -> dict[str, float]:
    tasks = task_columns(rows)
    return {r["Model"]: sum(float(r[t]) for t in tasks) / len(tasks) for r in complete(rows)}


def borda_points(rows: list[dict]) -> dict[str, float]:
    """Per task, one point per system scored lower and half a point per tie (Borda 1781, ties averaged)."""
    kept = complete(rows)
    return {
        r["Model"]: sum(
            sum(float(r[t]) > float(o[t]) for o in kept) + 0.5 * sum(float(r[t]) == float(o[t]) for o in kept if o is not r)
            for t in task_columns(rows)
        )
        for r in kept
    }


def key(name: str) -> str:
    """A system name without punctuation or spaces: the parser cleans VALUE's names (line breaks, markup)."""
    return re.sub(r"\W", "", name)


def table_rows(text: str) -> list[list[str]]:
    """The cells of the rows of the printed tables in ``text``."""
    return [[c.strip() for c in line.strip("│ ").split("┆")] for line in text.splitlines() if "┆" in line]


@pytest.fixture
def home(tmp_path, dumps):
    home = str(tmp_path / "wh")
    assert main(["--home", home, "ingest", str(dumps / VALUE.name)]) == 0
    return home


def test_rank_prints_the_leaderboard_led_by_the_published_leader_and_snapshots_lists_it(home, capsys):
    capsys.readouterr()
    assert main(["--home", home, "rank", "--benchmark", "value", "--method", "mean", "--method", "borda"]) == 0
    out = capsys.readouterr().out
    assert "== value (task level): 2 method(s), 2 new snapshot(s)" in out
    header, first, *rest = table_rows(out)
    assert header == ["system", "mean", "borda"]
    rows = value_rows()
    published_leader = max((r for r in rows if r["Meta-Ave"] != "-"), key=lambda r: float(r["Meta-Ave"]))["Model"]
    assert published_leader == max(means(rows), key=means(rows).get) == max(borda_points(rows), key=borda_points(rows).get)
    assert key(published_leader).startswith(key(first[0]))
    assert first[1].split()[:2] == ["1", f"{means(rows)[published_leader]:.4g}"]
    assert len(rest) == len(complete(rows)) - 1

    assert main(["--home", home, "snapshots", "--benchmark", "value"]) == 0
    listed = table_rows(capsys.readouterr().out)
    assert listed[0][:5] == ["snapshot_id", "created_at", "benchmark", "level", "method"]
    assert sorted(r[4] for r in listed[1:]) == ["borda", "mean"]
    assert all(r[-1] == "null" for r in listed[1:])  # first rankings: no previous snapshot


def test_diff_latest_and_diff_by_ids_agree_with_a_hand_computed_kendall_tau(home, dumps, capsys):
    assert main(["--home", home, "rank", "--benchmark", "value", "--method", "mean"]) == 0
    assert main(["--home", home, "diff", "--latest"]) == 0
    assert "no snapshot has a previous one" in capsys.readouterr().out
    # a corrected dump of the same source: the last HERO baseline now tops every task
    rows = value_rows()
    moved = next(r for r in rows if "(ST, FT-only)" in r["Model"])
    after = [dict(r, **({t: "200" for t in task_columns(rows)} if r is moved else {})) for r in rows]
    path = dumps / VALUE.name
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(after)
    assert main(["--home", home, "ingest", str(path)]) == 0
    assert main(["--home", home, "rank", "--benchmark", "value", "--method", "mean"]) == 0
    capsys.readouterr()

    assert main(["--home", home, "diff", "--latest", "--benchmark", "value", "--method", "mean"]) == 0
    latest = capsys.readouterr().out
    before_means, after_means = means(rows), means(after)
    systems = sorted(before_means)
    tau = kendalltau([before_means[s] for s in systems], [after_means[s] for s in systems]).statistic
    assert f"Kendall tau {tau:.4f}; top-3 agreement" in latest
    assert "entered: none; left: none" in latest
    changed = {key(r[0]) for r in table_rows(latest)[1:]}
    higher_before = sum(v > before_means[moved["Model"]] for v in before_means.values())
    assert len(changed) == higher_before + 1  # it and every system it passed
    assert any(key(moved["Model"]).startswith(c) for c in changed)

    ids = re.search(r"^(\w+) -> (\w+): value", latest, flags=re.M).groups()
    assert main(["--home", home, "diff", *ids]) == 0
    assert capsys.readouterr().out == latest  # the pairing --latest chose is the explicit one
    assert main(["--home", home, "snapshots", "--benchmark", "value"]) == 0
    assert ids[0] in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:  # --previous was a no-op and is gone
        main(["--home", home, "diff", "--latest", "--previous"])
    assert exit_info.value.code == 2


def test_analyze_agreement_stores_the_kendall_tau_of_mean_and_borda(home, capsys, tmp_path):
    args = ["--home", home, "analyze", "--benchmark", "value", "--experiment", "agreement", "--methods", "mean", "borda"]
    assert main(args) == 0
    assert re.search(r"== value: agreement \(analysis \w+, new\)", capsys.readouterr().out)
    assert main(args) == 0
    assert re.search(r"== value: agreement \(analysis \w+, unchanged\)", capsys.readouterr().out)
    out = tmp_path / "pairs.csv"
    assert main(["--home", home, "sql", "SELECT method_a, method_b, kendall_tau FROM method_pairs",
                 "--format", "csv", "--output", str(out)]) == 0
    with open(out, newline="") as handle:
        (pair,) = list(csv.DictReader(handle))
    rows = value_rows()
    mean, borda = means(rows), borda_points(rows)
    systems = sorted(mean)
    assert {pair["method_a"], pair["method_b"]} == {"mean", "borda"}
    assert float(pair["kendall_tau"]) == pytest.approx(kendalltau([mean[s] for s in systems], [borda[s] for s in systems]).statistic)


def test_run_ingests_ranks_and_reports_once_and_leaves_pickles_out(tmp_path, dumps, monkeypatch, capsys):
    (dumps / "fixture.pickle").write_bytes(b"never unpickled")
    (dumps / "README.md").write_text("documentation, not scores\n")
    (dumps / "leaderboards - SuperGLUE.csv").unlink()
    monkeypatch.setattr(run_module, "BUNDLED_DATA", dumps)
    home = tmp_path / "wh"
    assert main(["--home", str(home), "run"]) == 0
    first = capsys.readouterr().out
    assert "1 file(s) loaded, 0 unchanged" in first
    assert "left out 1 bundled pickle(s)" in first
    assert re.search(r"^value \(task level\): \d+ method\(s\), [1-9]\d* new snapshot\(s\); first by mean: ", first, re.M)
    assert len(first.splitlines()) <= 6  # quiet: totals, pickles, one line per benchmark, the report
    report = home / "report.html"
    assert f"HTML report of the latest rankings: {report}" in first
    page = report.read_bytes()
    assert b"value" in page and page.startswith(b"<!DOCTYPE html>")
    site = home / "site"
    assert f"Leaderboard site of the latest rankings: {site}/index.html" in first
    assert len(list((site / "systems").glob("*/*.html"))) == 7  # VALUE's systems
    site_files = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}

    assert main(["--home", str(home), "run"]) == 0  # twice: nothing new
    second = capsys.readouterr().out
    assert "0 file(s) loaded, 1 unchanged" in second
    assert re.search(r"^value \(task level\): \d+ method\(s\), 0 new snapshot\(s\)", second, re.M)
    assert report.read_bytes() == page
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == site_files  # the same snapshots, the same site


RULES_HEADER = "benchmark,task,metric,higher_is_better,is_ranked,weight,group,note\n"


def test_a_bad_rules_file_stops_the_ingest_before_anything_is_written(tmp_path, capsys):
    home = tmp_path / "wh"
    home.mkdir()
    rules = home / "metric_rules.csv"
    rules.write_text(RULES_HEADER + "value,TVR,*,true,true,2.0,,fine\nvalue,TVQA,*,maybe,true,1.0,,bad\n")
    assert main(["--home", str(home), "ingest", str(VALUE)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line == (f"scorehouse ingest: {rules}: line 3: higher_is_better must be true or false, got 'maybe' "
                    "(column 'higher_is_better', allowed values: true or false); fix the file and run again")
    assert [p.name for p in home.iterdir()] == ["metric_rules.csv"]  # nothing archived, loaded or cataloged

    rules.write_text(RULES_HEADER + "value,TVR,*,true,true,heavy,,bad weight\n")
    with pytest.raises(MetricRulesError, match=r"line 2: weight must be a number .*got 'heavy'"):
        ingest_flow([str(VALUE)], home=str(home))  # the flow checks too, for callers without the CLI
    assert [p.name for p in home.iterdir()] == ["metric_rules.csv"]


def test_help_imports_neither_prefect_nor_scipy():
    probe = ("import sys; from scorehouse.cli import build_parser; build_parser(); "
             "print(sorted(m for m in ('prefect', 'scipy', 'polars', 'duckdb') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
