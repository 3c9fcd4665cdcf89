"""The HTML report of a real warehouse (SuperGLUE and VALUE from the bundled dumps), read back without a browser.

References: the numbers published in /work/shared/data/README.md for these two
leaderboards, scipy's Kendall tau-b, and win probabilities counted by hand
from the VALUE dump with the closed form of the missing-score imputation.
"""

from __future__ import annotations

import csv
import math
import shutil
from itertools import combinations

import pytest
from scipy.stats import kendalltau

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.reports.report import method_label, write_report
from tests.flows.conftest import VALUE
from tests.flows.html_page import coverage, find, inside, leaderboard, matrix, read_page
from scorehouse.warehouse.exports import ExportError
from scorehouse.warehouse.snapshots import read_snapshot
from scorehouse.warehouse.storage import Warehouse

VALUE_TASKS = ("TVR", "How2R", "YC2R", "VATEX-EN-R", "TVQA", "How2QA", "VIOLIN", "VLEP", "TVC", "YC2C", "VATEX-EN-C")


@pytest.fixture(scope="module")
def page(ranked_warehouse, tmp_path_factory) -> str:  # noqa: ANN001
    path = write_report(ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids,
                        tmp_path_factory.mktemp("page") / "report.html")
    return path.read_text(encoding="utf-8")


def test_one_section_per_benchmark_with_every_method(page):
    elements = read_page(page)
    assert [s.attrs["id"] for s in find(elements, "section")] == ["superglue--task", "value--task"]
    heads = {s.attrs["id"]: [t.text for t in find(inside(elements, s), "th") if "data-method" in t.attrs]
             for s in find(elements, "section")}
    # the methods ranked (tests/flows/conftest.py), in the rank plan's order
    assert heads == {
        "superglue--task": ["mean", "borda", "kemeny", "copeland", "minimax", "borda_partial"],
        "value--task": ["mean", "borda", "kemeny", "copeland", "minimax", "borda_partial"],
    }


def test_leaderboards_show_the_published_reference_numbers(page):
    elements = read_page(page)
    superglue = leaderboard(elements, "superglue--task")
    # README: weighted mean ERNIE 3.0 90.62 on the 22 complete rows.  (Its Borda numbers count ties as
    # n - max-rank, Borda's ties="max", where the default run counts them "average"; its Copeland numbers are
    # on the 22 complete rows, where the default Copeland ranks all 24 systems: neither applies here.)
    assert list(superglue)[:3] == ["ERNIE 3.0", "T5 + UDG, Single Model (Google Brain)", "DeBERTa / TuringNLRv4"]
    assert superglue["ERNIE 3.0"][:2] == ["1", "90.62"]
    assert len(superglue) == 24
    value = leaderboard(elements, "value--task")
    # README, VALUE without the Human row: mean craig.starr 62.87; Borda craig.starr 53, DuKG 39, HERO 1 30
    assert value["craig.starr (ensemble) Kakao Brain"][:4] == ["1", "62.87", "1", "53"]
    assert value["DuKG Baidu & KG"][2:4] == ["2", "39"]
    assert value["HERO (AT->ST, PT+FT) VALUE baseline"][2:4] == ["3", "30"]
    # the mean and Borda rank complete systems only: the Human row is last, not ranked by them
    assert list(value)[-1] == "Human VALUE baseline" and value["Human VALUE baseline"][:2] == ["—", "—"]


def test_arrows_are_each_systems_rank_change_against_the_mean_snapshot(page, ranked_warehouse):
    snapshots = {m["method"]: r for m, r in (read_snapshot(ranked_warehouse.warehouse, s)
                                              for s in ranked_warehouse.snapshot_ids) if m["benchmark"] == "value"}
    mean = dict(zip(snapshots["mean"]["system"], snapshots["mean"]["rank"]))
    borda = dict(zip(snapshots["borda"]["system"], snapshots["borda"]["rank"]))
    rows = leaderboard(read_page(page), "value--task")
    expected = {s: "=" if mean[s] == borda[s] else f"↑{mean[s] - borda[s]}" if mean[s] > borda[s]
                else f"↓{borda[s] - mean[s]}" for s in mean}
    assert {s: rows[s][4] for s in mean} == expected
    assert sorted(expected.values()) != ["="] * len(expected)  # the methods do disagree somewhere


def test_kendall_tau_matrix_matches_scipy(page, ranked_warehouse):
    elements = read_page(page)
    for section, ids in (("superglue", "superglue--task"), ("value", "value--task")):
        snapshots = [read_snapshot(ranked_warehouse.warehouse, s) for s in ranked_warehouse.snapshot_ids]
        snapshots = [(method_label(m), r) for m, r in snapshots if m["benchmark"] == section]
        shown = matrix(elements, ids, "kendall")
        assert len(shown) == len(snapshots) ** 2
        for (label_a, a), (label_b, b) in combinations(snapshots, 2):
            common = sorted(set(a["system"]) & set(b["system"]))
            rank_a = dict(zip(a["system"], a["rank"]))
            rank_b = dict(zip(b["system"], b["rank"]))
            tau = kendalltau([rank_a[s] for s in common], [rank_b[s] for s in common], variant="b").statistic
            assert shown[(label_a, label_b)] == shown[(label_b, label_a)] == f"{tau:.3f}"


def value_rows() -> dict[str, dict[str, float | None]]:
    with open(VALUE, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {r["Model"]: {t: None if r[t] == "-" else float(r[t]) for t in VALUE_TASKS} for r in rows}


def expected_probability(a: str, b: str) -> tuple[float, int]:
    """P(a beats b) over the 11 VALUE tasks, by hand: a missing a lands above the observed b of rank r among k
    observed with probability r / (k + 1) (DESIGN.md); also the voters that observed and separated both."""
    rows = value_rows()
    total, deciding = 0.0, 0
    for task in VALUE_TASKS:
        x, y = rows[a][task], rows[b][task]
        observed = sorted((v[task] for v in rows.values() if v[task] is not None), reverse=True)
        if x is not None and y is not None:
            total += 1.0 if x > y else 0.0 if x < y else 0.5
            deciding += x != y
        elif x is None and y is not None:
            total += (observed.index(y) + 1) / (len(observed) + 1)
        elif y is None and x is not None:
            total += 1 - (observed.index(x) + 1) / (len(observed) + 1)
        else:
            total += 0.5
    return total / len(VALUE_TASKS), deciding


def test_heatmap_probabilities_and_intervals_match_a_count_by_hand(page):
    elements = read_page(page)
    raw = {  # the dump's names, as the leaderboard parser cleans them
        "craig.starr (ensemble) Kakao Brain": next(n for n in value_rows() if n.startswith("craig.starr")),
        "DuKG Baidu & KG": "DuKGBaidu & KGPaper",
        "Human VALUE baseline": "Human VALUE baseline <!-- Paper, Code -->",
    }
    for a, b in (("craig.starr (ensemble) Kakao Brain", "DuKG Baidu & KG"),
                 ("Human VALUE baseline", "craig.starr (ensemble) Kakao Brain")):
        p, n = expected_probability(raw[a], raw[b])
        half = math.sqrt(math.log(2 / 0.05) / (2 * n))
        cell = next(g for g in find(elements, "g", class_="cell") if (g.attrs["data-a"], g.attrs["data-b"]) == (a, b))
        assert find(inside(elements, cell), "title")[0].text == (
            f"P({a} beats {b}) = {p:.3f}; 95% Hoeffding interval [{max(p - half, 0):.3f}, {min(p + half, 1):.3f}]; "
            f"{n} voter(s) scored both and did not tie them")
    assert expected_probability(raw["craig.starr (ensemble) Kakao Brain"], raw["DuKG Baidu & KG"]) == (10 / 11, 11)
    value = next(s for s in find(elements, "section") if s.attrs["id"] == "value--task")
    assert len(find(inside(elements, value), "g", class_="cell")) == 7 * 6


def test_big_benchmarks_show_the_top_systems_and_say_so(ranked_warehouse, tmp_path):
    path = write_report(ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids, tmp_path / "r.html", top_n=4)
    elements = read_page(text := path.read_text(encoding="utf-8"))
    assert "Only the top 4 of the 24 systems (by the first method) are shown." in text
    assert "Only the top 4 of the 7 systems (by the first method) are shown." in text
    superglue = next(s for s in find(elements, "section") if s.attrs["id"] == "superglue--task")
    shown = {g.attrs["data-a"] for g in find(inside(elements, superglue), "g", class_="cell")}
    assert shown == set(list(leaderboard(elements, "superglue--task"))[:4])


def test_same_snapshots_same_bytes_whatever_their_order(ranked_warehouse, tmp_path, page):
    ids = ranked_warehouse.snapshot_ids
    again = write_report(ranked_warehouse.warehouse, list(reversed(ids)) + ids[:2], tmp_path / "again.html")
    assert again.read_text(encoding="utf-8") == page
    assert [p.name for p in tmp_path.iterdir()] == ["again.html"]  # nothing left aside


def test_cli_export_html_writes_the_same_page(ranked_warehouse, tmp_path, page, capsys):
    output = tmp_path / "cli.html"
    code = main(["--home", str(ranked_warehouse.warehouse.home), "export", "--latest", "--format", "html",
                 "--output", str(output)])
    assert code == 0 and output.read_text(encoding="utf-8") == page
    assert f"wrote {len(ranked_warehouse.snapshot_ids)} snapshot(s) to {output}" in capsys.readouterr().out


def test_no_snapshots_is_a_named_error(ranked_warehouse, tmp_path):
    with pytest.raises(ExportError, match="no snapshot ids given"):
        write_report(ranked_warehouse.warehouse, [], tmp_path / "r.html")
    with pytest.raises(ExportError, match="'top_n'.*got 1"):
        write_report(ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids, tmp_path / "r.html", top_n=1)
    assert not (tmp_path / "r.html").exists()


def test_report_says_when_current_scores_differ_from_the_ranked_inputs(ranked_warehouse, tmp_path):
    home = tmp_path / "copy"
    shutil.copytree(ranked_warehouse.warehouse.home, home)
    corrected = tmp_path / VALUE.name
    corrected.write_text(VALUE.read_text(encoding="utf-8").replace("15.41", "15.42", 1), encoding="utf-8")
    ingest_flow([str(corrected)], home=str(home))
    text = write_report(Warehouse(home), ranked_warehouse.snapshot_ids, tmp_path / "r.html").read_text(encoding="utf-8")
    assert text.count("which differ from the inputs of") == 1  # VALUE only; SuperGLUE is unchanged
    assert "differ from the inputs of mean, borda, kemeny, copeland, minimax, borda_partial;" in text


def test_every_leaderboard_shows_each_systems_voters_counted_from_the_dump(page):
    """VALUE's Human row has 6 of the 11 task scores in the dump (the others are '-'): the coverage column says so."""
    shown = coverage(read_page(page), "value--task")
    assert set(shown) == set(leaderboard(read_page(page), "value--task"))
    assert shown["Human VALUE baseline"] == 6
    assert shown["craig.starr (ensemble) Kakao Brain"] == len(VALUE_TASKS) == max(shown.values())
    assert min(coverage(read_page(page), "superglue--task").values()) > 0
