"""A battles section of the HTML report, opened in a real headless Chromium (``scorehouse export --latest``).

References: the arena snapshot's stored leaderboard for the table, and the
battles counted by Polars on the generated file for the matrices.
"""

from __future__ import annotations

import polars as pl
import pytest

from scorehouse.cli import main
from tests.flows.test_report_browser import browser  # noqa: F401 - the Chromium fixture
from scorehouse.transforms.synth_battles import synth_battles
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.snapshots import read_arena
from scorehouse.warehouse.storage import Warehouse

SECTION = 'section[id="arena--battles--no_filter"]'


@pytest.fixture(scope="module")
def arena_report(browser, tmp_path_factory):  # noqa: ANN001, ANN201, F811
    folder = tmp_path_factory.mktemp("arena-report")
    battles = synth_battles(2000, n_systems=5, seed=11).battles
    # one pair never meets: its cells are empty in both matrices
    a, b = sorted(battles.get_column("model_a").unique())[:2]
    battles = battles.filter(~(pl.col("model_a").is_in([a, b]) & pl.col("model_b").is_in([a, b])))
    battles.write_parquet(folder / "arena.parquet")
    home = str(folder / "warehouse")
    assert main(["--home", home, "ingest", str(folder / "arena.parquet"), "--benchmark", "arena"]) == 0
    assert main(["--home", home, "rank"]) == 0
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "100"]) == 0
    assert main(["--home", home, "export", "--latest", "--format", "html", "--output", str(folder / "r.html")]) == 0
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    console = []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.goto((folder / "r.html").as_uri(), wait_until="load")
    yield page, home, battles, console
    page.close()


def test_the_arena_leaderboard_is_shown_as_stored(arena_report):
    page, home, _, console = arena_report
    assert page.locator("section.benchmark h2").all_inner_texts() == ["arena (battles level: no filter)"]
    with connect(Warehouse(home)) as con:
        snapshot = query_frame(con, "SELECT snapshot_id FROM snapshots WHERE method = 'arena'").item()
    stored = read_arena(Warehouse(home), "arena", snapshot).sort("rank", "system")
    rows = page.locator(f"{SECTION} table.arena tbody tr")
    assert rows.count() == 5
    shown = [rows.nth(i).locator("td").all_inner_texts() for i in range(5)]
    assert [r[2] for r in shown] == stored.get_column("system").to_list()
    assert [r[3] for r in shown] == [f"{v:.1f}" for v in stored.get_column("rating")]
    assert [r[1] for r in shown] == [str(v) for v in stored.get_column("rank_ub")]
    assert [r[5] for r in shown] == [str(v) for v in stored.get_column("n_battles")]
    assert [m for m in console if m[0] in ("error", "warning")] == []


def test_the_win_rate_and_battle_matrices(arena_report):
    page, _, battles, _ = arena_report
    met = battles.select(pl.min_horizontal("model_a", "model_b").alias("a"), pl.max_horizontal("model_a", "model_b").alias("b"),
                         pl.when(pl.col("winner") == "model_a").then(pl.col("model_a"))
                         .when(pl.col("winner") == "model_b").then(pl.col("model_b")).alias("won"))
    pairs = met.group_by("a", "b").agg(pl.len().alias("n"), (pl.col("won") == pl.col("a")).sum().alias("a_won"),
                                      pl.col("won").is_null().sum().alias("ties"))
    for kind in ("win-rate", "battles"):
        heatmap = page.locator(f"{SECTION} svg.{kind}")
        box = heatmap.bounding_box()
        assert heatmap.is_visible() and box is not None and box["width"] > 200
        assert heatmap.locator("g.cell").count() == 2 * pairs.height  # pairs that met, both ways
    assert pairs.height == 9  # of the 10 pairs of 5 systems
    first = pairs.sort("n", descending=True).row(0, named=True)
    rate = (first["a_won"] + 0.5 * first["ties"]) / first["n"]
    tip = page.locator(f'{SECTION} svg.win-rate g.cell[data-a="{first["a"]}"][data-b="{first["b"]}"] title').text_content()
    assert tip == f"{first['a']} won {rate:.3f} of {first['n']} battle(s) against {first['b']} (ties half)"
    count = page.locator(f'{SECTION} svg.battles g.cell[data-a="{first["b"]}"][data-b="{first["a"]}"] text').text_content()
    assert count == str(first["n"])
