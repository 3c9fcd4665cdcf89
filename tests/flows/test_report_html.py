"""The pure HTML renderer: escaping, one column per method, deterministic bytes."""

from datetime import UTC, datetime

import polars as pl

from flows.report_html import Agreement, MethodColumn, Section, render_report

EVIL = '<script>alert("x")</script> & co'


def column(label: str, ranks: dict[str, int], reference: bool = False) -> MethodColumn:
    ranking = pl.DataFrame({"system": list(ranks), "score": [float(-r) for r in ranks.values()],
                            "rank": list(ranks.values()), "tied": [False] * len(ranks)})
    manifest = {"snapshot_id": f"id-{label}", "created_at": datetime(2026, 1, 1, tzinfo=UTC), "method": label,
                "parameters": "{}", "input_fingerprint": "f" * 64, "code_version": "0.1.0+abc",
                "n_systems": len(ranks), "n_voters": 3, "notes": [], "previous_snapshot_id": None}
    return MethodColumn(label, manifest, ranking, is_reference=reference)


def section() -> Section:
    columns = (column("mean", {EVIL: 1, "b": 2}, reference=True), column("borda", {EVIL: 2, "b": 1}))
    agreement = Agreement(("mean", "borda"), ((1.0, -1.0), (-1.0, 1.0)), ((1.0, 0.5), (0.5, 1.0)), ((2, 2), (2, 2)), 1)
    return Section("bench<1>", "task", (EVIL, "b"), columns, None, agreement, ("a note with <tags>",))


def test_markup_in_the_data_is_escaped():
    page = render_report([section()])
    assert "<script>" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in page
    assert "bench&lt;1&gt;" in page and "a note with &lt;tags&gt;" in page


def test_every_method_has_a_column_and_rank_changes_are_against_the_mean():
    page = render_report([section()])
    assert page.count('data-method="mean"') == 1 and page.count('data-method="borda"') == 1
    assert '<span class="down">↓1</span>' in page and '<span class="up">↑1</span>' in page


def test_same_sections_same_bytes():
    assert render_report([section()]) == render_report([section()])
