"""The pure renderer of the HTML report: escaping, columns, arrows, heatmap, determinism (no browser, no warehouse)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import polars as pl

from scorehouse.aggregators.schemas import CONFIDENCE_SCHEMA
from scorehouse.reports.report import leaderboard_order, method_label
from scorehouse.reports.report_html import Agreement, MethodColumn, Pairwise, Section, render_report
from tests.flows.html_page import find, inside, matrix, read_page

# Names as scraped leaderboards deliver them: markup, entities, quotes, comment delimiters.
HOSTILE = (
    '<script>alert("x")</script>',
    "DuKG Baidu & KG",
    "HERO (AT->ST, PT+FT) <u>VALUE</u>",
    "it's \"quoted\" --> <!-- &amp;",
)


def manifest(snapshot: str, method: str, parameters: str = "{}", notes: tuple[str, ...] = ()) -> dict:
    return {
        "snapshot_id": snapshot, "created_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "benchmark": "b<x>",
        "level": "task", "method": method, "parameters": parameters, "input_fingerprint": "f" * 64,
        "load_ids": ["l1"], "code_version": "0.1.0+abc", "n_voters": 3, "n_systems": 4, "n_rows": 4,
        "notes": list(notes), "previous_snapshot_id": None,
    }


def ranking(ranks: dict[str, int]) -> pl.DataFrame:
    systems = list(ranks)
    rank_values = [ranks[s] for s in systems]
    return pl.DataFrame({
        "system": systems,
        "score": [10.0 - r for r in rank_values],
        "rank": rank_values,
        "tied": [rank_values.count(r) > 1 for r in rank_values],
    })


def pairwise(systems: tuple[str, ...]) -> Pairwise:
    """P(a beats b) = 0.8 when a comes first in ``systems``, 0.2 otherwise; the first pair separated."""
    rows = [
        {"system_a": a, "system_b": b, "probability": 0.8 if i < j else 0.2, "n": 3, "half_width": 0.25,
         "lower": 0.55 if i < j else 0.0, "upper": 1.0 if i < j else 0.45, "excludes_half": (i, j) in {(0, 1), (1, 0)}}
        for i, a in enumerate(systems) for j, b in enumerate(systems) if a != b
    ]
    return Pairwise(systems, pl.DataFrame(rows, schema=CONFIDENCE_SCHEMA), 0.05, len(systems) + 1)


def section() -> Section:
    a, b, c, d = HOSTILE
    columns = (
        MethodColumn("mean", manifest("s1", "mean"), ranking({a: 1, b: 2, c: 3, d: 4}), is_reference=True),
        MethodColumn("borda (two-level)", manifest("s2", "borda", '{"two_step":true}', ("note <u>x</u> & y",)),
                     ranking({c: 1, a: 2, b: 2, d: 4})),
        MethodColumn("minimax", manifest("s3", "minimax"), ranking({d: 1, a: 2, b: 3})),
    )
    return Section(
        "b<x>", "task", leaderboard_order(columns), columns, pairwise((a, b, c)),
        Agreement(("mean", "borda (two-level)", "minimax"),
                  ((1.0, 0.2, -0.5), (0.2, 1.0, None), (-0.5, None, 1.0)),
                  ((1.0, 2 / 3, 1 / 3), (2 / 3, 1.0, 0.5), (1 / 3, 0.5, 1.0)),
                  ((4, 4, 3), (4, 4, 3), (3, 3, 3)), 3),
        ("a section note with <markup>",),
    )


def test_markup_in_names_is_escaped_and_read_back_exactly():
    page = render_report([section()])
    assert "<script" not in page.lower()  # the hostile name never becomes an element
    for text in (*HOSTILE, "<u>", "<!--", "<markup>"):
        assert text not in page
    assert html.escape(HOSTILE[3]) in page
    elements = read_page(page)  # also checks every element is closed where it should be
    names = [e.text for e in find(elements, "td", class_="system")]
    # the leaderboard rows, in the order of the first method (mean)
    assert names == list(HOSTILE)
    cells = find(elements, "g", class_="cell")
    assert {(g.attrs["data-a"], g.attrs["data-b"]) for g in cells} == {
        (x, y) for x in HOSTILE[:3] for y in HOSTILE[:3] if x != y}
    assert [e.text for e in find(elements, "li") if "note" in e.text][-1] == "note <u>x</u> & y"
    assert find(elements, "h2")[0].text == "b<x> (task level)"
    assert not find(elements, "script") and not find(elements, "img") and not find(elements, "link")


def test_every_method_has_its_columns_and_every_row_spans_them():
    elements = read_page(render_report([section()]))
    board = inside(elements, find(elements, "table", class_="board")[0])
    assert [e.text for e in find(board, "th") if "data-method" in e.attrs] == ["mean", "borda (two-level)", "minimax"]
    # mean: rank, score; the two others also the change against the mean
    header = [e.text for e in find(board, "th") if "data-method" not in e.attrs][1:]
    assert header == ["rank", "score", "rank", "score", "vs mean", "rank", "score", "vs mean"]
    rows = find(inside(elements, find(board, "tbody")[0]), "tr")
    assert len(rows) == 4
    for row in rows:
        cells = find(inside(elements, row), "td")
        assert sum(int(c.attrs.get("colspan", 1)) for c in cells) == 1 + 2 + 3 + 3
    assert page_text_of_row(elements, HOSTILE[2]) == ["3", "7", "1", "9", "↑2", "—"]


def page_text_of_row(elements, name: str) -> list[str]:  # noqa: ANN001
    """The cells after the system cell of ``name`` in its row of the leaderboard."""
    row = next(r for r in find(elements, "tr") if [c.text for c in find(inside(elements, r), "td")][:1] == [name])
    return [c.text.strip() for c in find(inside(elements, row), "td")][1:]


def test_arrows_are_the_rank_change_against_the_mean():
    elements = read_page(render_report([section()]))
    a, b, c, d = HOSTILE
    # mean ranks a1 b2 c3 d4; borda c1 a2 b2(tie) d4; minimax d1 a2 b3 (c not ranked)
    assert page_text_of_row(elements, a) == ["1", "9", "2 tie", "8", "↓1", "2", "8", "↓1"]
    assert page_text_of_row(elements, b) == ["2", "8", "2 tie", "8", "=", "3", "7", "↓1"]
    assert page_text_of_row(elements, d) == ["4", "6", "4", "6", "=", "1", "9", "↑3"]


def test_heatmap_tooltips_carry_probability_and_interval():
    elements = read_page(render_report([section()]))
    a, b, _, _ = HOSTILE
    cell = next(g for g in find(elements, "g", class_="cell") if (g.attrs["data-a"], g.attrs["data-b"]) == (a, b))
    assert find(elements[elements.index(cell):], "title")[0].text == (
        f"P({a} beats {b}) = 0.800; 95% Hoeffding interval [0.550, 1.000]; 3 voter(s) scored both and did not tie them")
    assert cell.text.endswith("0.80")
    page = render_report([section()])
    assert "Only the top 3 of the 4 systems (by the first method) are shown." in page
    # exactly the separated pair (first two systems, both orders) is outlined
    assert len(re.findall(r'stroke="#111"', page)) == 2


def test_agreement_cells_and_undefined_values():
    elements = read_page(render_report([section()]))
    tau, top = matrix(elements, "b<x>--task", "kendall"), matrix(elements, "b<x>--task", "top-k")
    assert len(tau) == len(top) == 9
    assert tau[("mean", "minimax")] == "-0.500" and tau[("borda (two-level)", "minimax")] == "n/a"
    assert top[("mean", "borda (two-level)")] == "0.667" and top[("minimax", "minimax")] == "1.000"


def test_output_depends_only_on_the_content():
    one = render_report([section()])
    assert render_report([section()]) == one
    shuffled = section()
    columns = tuple(
        MethodColumn(c.label, c.manifest, c.ranking.sample(fraction=1.0, shuffle=True, seed=7), c.is_reference)
        for c in shuffled.columns
    )
    again = Section(shuffled.benchmark, shuffled.level, shuffled.systems, columns, shuffled.pairwise,
                    shuffled.agreement, shuffled.notes)
    assert render_report([again]) == one
    assert not re.search(r"20\d\d-\d\d-\d\dT(?!03:04:05)", one)  # the only timestamps are the snapshots'


def test_leaderboard_order_is_first_method_then_the_next_then_name():
    columns = (
        MethodColumn("mean", manifest("s1", "mean"), ranking({"b": 1, "a": 2})),
        MethodColumn("borda", manifest("s2", "borda"), ranking({"z": 1, "y": 2, "a": 3, "b": 3})),
        MethodColumn("copeland", manifest("s3", "copeland"), ranking({"x": 1, "w": 1, "y": 1})),
    )
    # b, a by the mean; z, y by borda; then w, x tied by copeland, by name
    assert leaderboard_order(columns) == ("b", "a", "z", "y", "w", "x")


def test_method_labels_name_two_step_and_parameters():
    assert method_label(manifest("s", "borda", '{"two_step":true}')) == "borda (two-level)"
    assert method_label(manifest("s", "elo", '{"k":32,"seed":1}')) == 'elo [k=32, seed=1]'
    assert method_label(manifest("s", "mean")) == "mean"
