"""The static site in a real headless Chromium, on the bundled SuperGLUE and VALUE and on a generated
700 x 1,000 benchmark: sorting, search, filters, the method selector and the URL state, the system
page against ``sql`` on the catalog's views, no request leaving the site, names shown as text.

Expected values come from the catalog (:func:`warehouse.catalog.user_query`, what ``scorehouse sql`` runs)
or from the generated input frames, never from the site's own data files.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from benchmarks.bench_site import HOSTILE_NAMES, synthetic_benchmark, write_site
from scorehouse.aggregators import pairwise_confidence
from scorehouse.cli import main
from scorehouse.reports.site.build import build_site
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.warehouse.catalog import user_query
from tests.flows import test_report_browser

browser = test_report_browser.browser  # the report tests' Chromium fixture, shared

SUPERGLUE = "superglue (task level)"


@pytest.fixture(scope="module")
def site(ranked_warehouse, tmp_path_factory) -> Path:  # noqa: ANN001
    return build_site(ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids, tmp_path_factory.mktemp("site") / "site")


@pytest.fixture(scope="module")
def big():  # noqa: ANN201
    """The generated MTEB-shaped benchmark of 700 systems x 1,000 tasks (the performance benchmark's input)."""
    return synthetic_benchmark(700, 1000)


@pytest.fixture(scope="module")
def big_site(big, tmp_path_factory) -> Path:  # noqa: ANN001
    return write_site(big, tmp_path_factory.mktemp("big") / "site")[0]


class Watched:
    """A page with every console message, page error, dialog and request recorded."""

    def __init__(self, browser) -> None:  # noqa: ANN001
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.console, self.errors, self.requests, self.dialogs = [], [], [], []
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def open(self, url: str) -> None:
        self.page.goto(url, wait_until="load")
        self.page.wait_for_selector("body[data-ready]")

    def rows(self) -> list[str]:
        return self.page.locator("#leaderboard tbody th.system").all_inner_texts()

    def column(self, column: str) -> list[str]:
        return self.page.locator(f'#leaderboard tbody td[data-column="{column}"]').all_inner_texts()


@pytest.fixture
def watched(browser):  # noqa: ANN001, ANN201
    page = Watched(browser)
    yield page
    assert page.errors == [] and [m for m in page.console if m[0] in ("error", "warning")] == []
    assert page.dialogs == []  # nothing from the data ran
    page.page.close()


def _benchmark_url(site: Path, title: str) -> str:
    return next(p for p in (site / "benchmarks").glob("*.html") if title in p.read_text(encoding="utf-8")).as_uri()


def _cells(page, table: str) -> list[list[str]]:  # noqa: ANN001
    """The texts of the body rows' cells (row header first) of a table."""
    return page.locator(f"{table} tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.querySelectorAll('th, td'), c => c.textContent))")


def _sql(warehouse, query: str) -> pl.DataFrame:  # noqa: ANN001
    return user_query(warehouse, query)


def test_index_links_to_every_benchmark(site, watched):
    watched.open((site / "index.html").as_uri())
    assert watched.page.locator("#benchmarks tbody tr").count() == 2
    watched.page.get_by_role("link", name=SUPERGLUE).click()
    watched.page.wait_for_selector("body[data-ready]")
    assert watched.page.locator("h1").inner_text() == SUPERGLUE
    assert watched.page.locator('table#leaderboard').count() == 1 and watched.page.locator('select#method').count() == 1


def test_method_switch_orders_as_the_snapshot_says(site, ranked_warehouse, watched):
    watched.open(_benchmark_url(site, SUPERGLUE))
    labels = watched.page.locator("#method option").all_inner_texts()
    assert len(labels) == 6
    latest = _sql(ranked_warehouse.warehouse, "SELECT method, parameters, system, rank FROM latest_rankings "
                  "WHERE benchmark = 'superglue'")
    everyone = set(latest.get_column("system").to_list())
    seen_orders = set()
    for k, label in enumerate(labels):
        watched.page.select_option("#method", index=k)
        method = label.split(" [")[0]
        ranks = latest.filter(pl.col("method") == method)
        expected = [s for s, _ in sorted(ranks.select("system", "rank").iter_rows(), key=lambda r: (r[1], r[0].lower()))]
        unranked = sorted(set(everyone) - set(expected), key=str.lower)  # systems the method left out come last
        assert watched.rows() == expected + unranked, label
        shown = [int(t.rstrip("=")) for t in watched.column("rank") if t != "—"]
        assert shown == sorted(ranks.get_column("rank").to_list())
        seen_orders.add(tuple(expected))
    assert len(seen_orders) > 1  # the methods disagree on SuperGLUE: switching changes the order


def test_sort_by_a_task_column_and_search(site, ranked_warehouse, watched):
    watched.open(_benchmark_url(site, SUPERGLUE))
    watched.page.locator("#leaderboard button.sort", has_text="BoolQ").first.click()
    scores = _sql(ranked_warehouse.warehouse, "SELECT system, score FROM scores WHERE benchmark = 'superglue' AND task = 'BoolQ' AND score IS NOT NULL")
    have = dict(scores.iter_rows())
    systems = watched.rows()
    expected = sorted(have, key=lambda s: (-have[s], s.lower()))
    assert systems[:len(expected)] == expected and set(systems[len(expected):]) == {s for s in systems if s not in have}
    watched.page.locator("#leaderboard button.sort", has_text="BoolQ").first.click()  # again: ascending
    assert watched.rows()[:len(expected)] == sorted(have, key=lambda s: (have[s], s.lower()))
    watched.page.fill("input[type=search]", "bert")
    assert watched.rows() and all("bert" in s.lower() for s in watched.rows())
    everyone = _sql(ranked_warehouse.warehouse, "SELECT DISTINCT system FROM latest_rankings WHERE benchmark = 'superglue'")
    assert sorted(watched.rows()) == sorted(s for s in everyone.get_column("system") if "bert" in s.lower())


def test_url_state_round_trips(site, browser, watched):  # noqa: ANN001
    watched.open(_benchmark_url(site, SUPERGLUE))
    watched.page.select_option("#method", index=2)
    watched.page.locator("#leaderboard button.sort", has_text="COPA").first.click()
    watched.page.fill("input[type=search]", "a")
    watched.page.fill("#min-coverage", "14")
    rows, url = watched.rows(), watched.page.url
    assert "#" in url and "q=a" in url and "cov=14" in url
    again = Watched(browser)
    again.open(url)
    assert again.rows() == rows
    assert again.page.input_value("#method") == watched.page.input_value("#method")
    assert again.page.input_value("input[type=search]") == "a" and again.page.input_value("#min-coverage") == "14"
    assert again.page.locator('th[aria-sort="descending"]').inner_text().startswith("COPA")
    again.page.close()


def test_system_page_numbers_equal_sql(site, ranked_warehouse, watched):
    warehouse = ranked_warehouse.warehouse
    watched.open(_benchmark_url(site, "value (task level)"))
    watched.page.get_by_role("link", name="DuKG Baidu & KG", exact=True).click()
    watched.page.wait_for_selector("body[data-ready]")
    page = watched.page
    assert page.locator("h1").inner_text() == "DuKG Baidu & KG"
    system = "'DuKG Baidu & KG'"
    ranked = _sql(warehouse, f"SELECT method, parameters, rank, score FROM latest_rankings WHERE benchmark = 'value' AND system = {system}")
    rows = page.locator("#methods tbody tr")
    shown = {}
    for r in range(rows.count()):
        cells = rows.nth(r).locator("th, td")
        if cells.nth(1).inner_text() != "—":  # a method that left the system out has no row in latest_rankings
            shown[cells.nth(0).inner_text().split(" [")[0]] = (
                int(cells.nth(1).inner_text().rstrip("=")), float(cells.nth(3).locator("span").get_attribute("data-value")))
    assert shown == {m: (rank, score) for m, _, rank, score in ranked.iter_rows()}
    scores = _sql(warehouse, f"SELECT s.task, s.metric, s.score, r.rank FROM oriented_scores AS s LEFT JOIN task_ranks AS r "
                  f"USING (benchmark, task, metric, system) WHERE s.benchmark = 'value' AND s.system = {system} "
                  "AND s.is_ranked")  # the site's task columns are the voters
    values = page.locator("#tasks tbody span[data-value]").evaluate_all("spans => spans.map(s => s.dataset.value)")
    tasks = {(cells[0], cells[1]): (float(value) if value else None, None if cells[4] == "—" else int(cells[4]))
             for cells, value in zip(_cells(page, "#tasks"), values, strict=True)}
    assert tasks == {(t, m): (score, rank) for t, m, score, rank in scores.iter_rows()}
    counts = _sql(warehouse, f"SELECT system_b, wins, ties, losses FROM pairwise_counts WHERE benchmark = 'value' "
                  f"AND level = 'task' AND system_a = {system}")
    rivals = {cells[0]: tuple(int(c) for c in cells[1:]) for cells in _cells(page, "#rivals")}
    assert {k: v for k, v in rivals.items() if v != (0, 0, 0)} == {b: (w, t, lo) for b, w, t, lo in counts.iter_rows()}


def test_no_request_leaves_the_site(site, watched):
    watched.open((site / "index.html").as_uri())
    watched.page.get_by_role("link", name=SUPERGLUE).click()
    watched.page.wait_for_selector("body[data-ready]")
    watched.page.locator("#leaderboard tbody th.system a").first.click()
    watched.page.wait_for_selector("body[data-ready]")
    root = site.resolve().as_uri() + "/"
    assert watched.requests and all(url.startswith(root) for url in watched.requests)
    assert {Path(url.split("#")[0]).suffix for url in watched.requests} == {".html", ".js", ".css"}


def test_big_benchmark_sorts_filters_and_shows_hostile_names_as_text(big, big_site, watched):
    watched.open(_benchmark_url(big_site, "synthetic-mteb") + "#open=g0")
    status = watched.page.locator("#status")
    assert "(700 in total)" in status.inner_text()
    # a metadata filter: at least a billion parameters
    watched.page.fill("#f-n_parameters-min", "1000000000")
    parameters = dict(big.metadata.select("system", "n_parameters").iter_rows())
    expected = sorted((s for s, n in parameters.items() if n >= 1_000_000_000),
                      key=lambda s: (big.methods[0].ranking.filter(pl.col("system") == s)["rank"][0], s.lower()))
    assert f"of {len(expected)} shown" in status.inner_text()
    assert watched.rows() == expected[:50]
    assert all(int(v) >= 1_000_000_000 for v in watched.column("meta:n_parameters"))
    watched.page.fill("#f-n_parameters-min", "")
    # sort by a task column of the open group
    button = watched.page.locator('#leaderboard button.sort[data-column^="t:"]').first
    task = button.inner_text()
    button.click()
    scores = big.task_scores.filter(pl.col("task") == task)
    best = sorted(scores.iter_rows(named=True), key=lambda r: (-r["score"], r["system"].lower()))[:50]
    assert watched.rows() == [r["system"] for r in best]
    column = button.get_attribute("data-column")
    assert [float(v) for v in watched.column(column)] == [float(f"{r['score']:.4g}") for r in best]
    # the rows are refilled, not drawn again: every cell of a row is still its system's (the rank range here)
    sure = big.pairwise.filter(pl.col("excludes_half"))
    n_systems = big.pairwise.get_column("system_a").n_unique()
    expected_ranges = [
        f"{1 + sure.filter((pl.col('system_b') == r['system']) & (pl.col('probability') > 0.5)).height}–"
        f"{n_systems - sure.filter((pl.col('system_a') == r['system']) & (pl.col('probability') > 0.5)).height}"
        for r in best]
    assert [t.strip() for t in watched.column("interval")] == expected_ranges
    # names holding markup are text: searched for, found, shown as given, nothing of them ran
    for name in HOSTILE_NAMES:
        watched.page.fill("input[type=search]", name)
        assert watched.rows() == [name]
    assert watched.page.locator("#leaderboard img, #leaderboard script").count() == 0


def test_site_and_export_commands(ranked_warehouse, tmp_path, capsys):
    home = str(ranked_warehouse.warehouse.home)
    assert main(["--home", home, "site", "--output", str(tmp_path / "a")]) == 0
    assert "open " + str(tmp_path / "a" / "index.html") in capsys.readouterr().out
    assert main(["--home", home, "export", "--latest", "--format", "site", "--output", str(tmp_path / "b")]) == 0
    files = {str(p.relative_to(tmp_path / "a")) for p in (tmp_path / "a").rglob("*") if p.is_file()}
    assert files == {str(p.relative_to(tmp_path / "b")) for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert len([f for f in files if f.startswith("systems/")]) == 24 + 7
    assert main(["--home", home, "site", "--benchmark", "nothing", "--output", str(tmp_path / "c")]) == 2
    assert "no ranking snapshots" in capsys.readouterr().err and not (tmp_path / "c").exists()


def test_report_and_site_from_one_computation_are_those_written_apart(ranked_warehouse, tmp_path):
    from scorehouse.reports.report import write_report
    from scorehouse.reports.site.build import build_report_and_site

    warehouse, ids = ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids
    report, site = build_report_and_site(warehouse, ids, tmp_path / "report.html", tmp_path / "site")
    assert report.read_text(encoding="utf-8") == write_report(warehouse, ids, tmp_path / "alone.html").read_text(encoding="utf-8")
    assert "superglue" in report.read_text(encoding="utf-8") and report.stat().st_size > 10_000
    alone = build_site(warehouse, ids, tmp_path / "alone")

    def tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert tree(site) == tree(alone) and len(tree(site)) > 30


def test_refresh_rebuilds_the_site_only_when_a_ranking_changed(dumps, tmp_path):
    from scorehouse.flows.refresh import refresh_flow

    inbox, home, site = tmp_path / "inbox", str(tmp_path / "home"), tmp_path / "site"
    inbox.mkdir()
    (dumps / "leaderboards - VALUE.csv").rename(inbox / "value.csv")
    report = refresh_flow(str(inbox), home=home, site=str(site))
    assert report.site == str(site) and (site / "index.html").exists()
    assert len(list((site / "systems").glob("*/*.html"))) == 7
    (site / "index.html").unlink()  # a rebuild would write it again
    (dumps / "leaderboards - SuperGLUE.csv").rename(inbox / "superglue.csv")
    (inbox / "superglue.csv").write_bytes(b"")  # a file that loads nothing: no ranking changes
    report = refresh_flow(str(inbox), home=home, site=str(site))
    assert [f.status for f in report.files] != ["loaded"] and report.site is None
    assert not (site / "index.html").exists()


ARENA_PAGE = "arena (battles level: no filter)"


@pytest.fixture(scope="module")
def arena_site(tmp_path_factory):  # noqa: ANN201
    """A home of generated battles (judges, categories, languages) ranked, with an arena snapshot, and its site."""
    from scorehouse.transforms.synth_battles import synth_battles

    folder = tmp_path_factory.mktemp("arena")
    synth_battles(1500, n_systems=5, seed=3).battles.write_parquet(folder / "arena.parquet")
    home = str(folder / "warehouse")
    assert main(["--home", home, "ingest", str(folder / "arena.parquet"), "--benchmark", "arena"]) == 0
    assert main(["--home", home, "rank"]) == 0
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "100"]) == 0
    assert main(["--home", home, "site", "--output", str(folder / "site")]) == 0
    return home, folder / "site"


def _arena_rows(page) -> list[tuple]:  # noqa: ANN001
    """The arena table as (system, rank, rank (UB), rating, interval text, battles, win rate)."""
    return [(r[2], int(r[0]), int(r[1]), r[3], r[4].strip(), int(r[5]), r[6]) for r in _cells(page, "#arena-table")]


def _stored_rows(arena: pl.DataFrame) -> list[tuple]:
    return [(s, rank, ub, f"{rating:.1f}", f"[{lo:.1f}, {hi:.1f}]", n, f"{w:.3f}") for s, rating, lo, hi, rank, ub, n, w in
            arena.sort("rank", "system").select("system", "rating", "lower", "upper", "rank", "rank_ub", "n_battles",
                                                 "win_rate").iter_rows()]


def _stored_arena(home: str, parameters_like: str) -> pl.DataFrame:
    from scorehouse.warehouse.snapshots import read_arena
    from scorehouse.warehouse.storage import Warehouse

    snapshot = _sql(Warehouse(home), "SELECT snapshot_id FROM snapshots WHERE method = 'arena' "
                    f"AND parameters LIKE '{parameters_like}'").item()
    return read_arena(Warehouse(home), "arena", snapshot)


def test_battles_page_shows_the_arena_as_stored(arena_site, watched):
    home, site = arena_site
    watched.open(_benchmark_url(site, ARENA_PAGE))
    assert _arena_rows(watched.page) == _stored_rows(_stored_arena(home, '%"battles":{"bothbad":"tie"}%'))


def test_arena_category_filter_shows_what_scorehouse_arena_stores_for_it(arena_site, browser, watched):  # noqa: ANN001
    import subprocess
    import sys

    home, site = arena_site
    watched.open(_benchmark_url(site, ARENA_PAGE))
    page = watched.page
    everything = _arena_rows(page)
    categories = page.locator("#arena-category option").evaluate_all("options => options.map(o => o.value)")
    assert categories[0] == "" and len(categories) == 6  # all, and the five generated categories
    assert page.locator("#arena-judge option").count() == 4 and page.locator("#arena-language option").count() == 6
    category = categories[2]
    page.select_option("#arena-category", category)
    shown = _arena_rows(page)
    # the expected table: what the command stores for the same battles, parameters and seed (a process of its own)
    done = subprocess.run([sys.executable, "-m", "scorehouse", "--home", home, "arena", "--benchmark", "arena",
                           "--category", category, "--resamples", "100"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected = _stored_rows(_stored_arena(home, f'%"category":["{category}"]%'))
    assert shown == expected and shown != everything
    battles = _sql(__import__("scorehouse.warehouse.storage", fromlist=["Warehouse"]).Warehouse(home),
                   f"SELECT count(*) FROM battles WHERE benchmark = 'arena' AND category = '{category}'").item()
    assert f"The {battles} battles with category = {category}" in page.locator("#arena-status").inner_text()
    # the filter is in the URL: the address opens the same table; a judge replaces the category (one at a time)
    assert f"a.category={category}" in page.url
    again = Watched(browser)
    again.open(page.url)
    assert again.page.input_value("#arena-category") == category and _arena_rows(again.page) == expected
    again.page.close()
    page.select_option("#arena-judge", index=1)
    assert page.input_value("#arena-category") == "" and "a.category" not in page.url and "a.judge=" in page.url
    page.select_option("#arena-judge", "")
    assert _arena_rows(page) == everything


def test_each_battles_method_draws_its_own_interval(arena_site, watched):
    """bradley_terry and elo draw the bootstrap interval their battles snapshot stores (read with sql), arena the
    ranks its rating intervals cannot exclude."""
    from scorehouse.warehouse.storage import Warehouse

    home, site = arena_site
    watched.open(_benchmark_url(site, ARENA_PAGE))
    page = watched.page
    labels = page.locator("#method option").all_inner_texts()
    arena = next(k for k, label in enumerate(labels) if label.startswith("arena"))
    for method in ("bradley_terry", "elo"):
        page.select_option("#method", index=next(k for k, label in enumerate(labels) if label.startswith(method)))
        stored = _sql(Warehouse(home), f"""
            SELECT i.system, i.rank_best, i.rank_worst FROM snapshot_intervals AS i
            JOIN latest_snapshots AS m ON m.snapshot_id = i.snapshot WHERE m.benchmark = 'arena' AND m.method = '{method}'""")
        expected = {s: f"{lo}–{hi}" for s, lo, hi in stored.iter_rows()}
        assert dict(zip(watched.rows(), (t.strip() for t in watched.column("interval")))) == expected
        assert len(expected) == 5 and len(set(expected.values())) > 1
        note = page.locator("#interval-source").inner_text()
        assert note.startswith(f"95% rank range: {method} [battles=") and "'s own interval, stored with its snapshot" in note
        assert "over 200 bootstrap resamples of the battles, seed 0" in note
    page.select_option("#method", index=arena)
    assert "own interval" in page.locator("#interval-source").inner_text()
    stored = _stored_arena(home, '%"battles":{"bothbad":"tie"}%')
    bounds = dict(zip(stored.get_column("system"), zip(stored.get_column("lower"), stored.get_column("upper"))))
    expected = {}  # brute force: the ranks the bootstrap intervals cannot exclude
    for system, (low, high) in bounds.items():
        above = sum(other_low > high for other_low, _ in bounds.values())
        below = sum(other_high < low for _, other_high in bounds.values())
        expected[system] = f"{1 + above}–{len(bounds) - below}"
    shown = dict(zip(watched.rows(), (t.strip() for t in watched.column("interval"))))
    assert shown == expected and len(set(expected.values())) > 1


def test_critical_difference_view_against_the_catalog(site, ranked_warehouse, watched):
    from scipy.stats import rankdata

    watched.open(_benchmark_url(site, SUPERGLUE))
    oriented = _sql(ranked_warehouse.warehouse, "SELECT task || ' | ' || metric AS voter, system, oriented FROM oriented_scores "
                    "WHERE benchmark = 'superglue' AND is_ranked AND oriented IS NOT NULL")
    wide = oriented.pivot(on="system", index="voter", values="oriented")
    complete = [c for c in wide.columns if c != "voter" and wide.get_column(c).null_count() == 0]
    matrix = wide.select(complete).to_numpy()
    average = {s: sum(rankdata(-row)[j] for row in matrix) / len(matrix) for j, s in enumerate(complete)}
    shown = {cells[0]: float(cells[1]) for cells in _cells(watched.page, "#critical-table")}
    assert shown == {s: pytest.approx(round(a, 3), abs=5e-4) for s, a in average.items()}
    assert watched.page.locator("#critical-difference svg.critical").count() == 1


def test_column_groups_open_and_hide_from_the_keyboard(big, big_site, watched):
    watched.open(_benchmark_url(big_site, "synthetic-mteb"))
    page = watched.page
    groups = sorted(set(big.metrics.get_column("group").to_list()))
    # collapsed: each task group is one mean column; its toggle opens it to its tasks, from the keyboard
    assert page.locator('#leaderboard button.sort[data-column^="t:"]').count() == 0
    assert page.locator('#leaderboard button.sort[data-column^="g:"]').count() == len(groups)
    toggle = page.locator('#leaderboard button.toggle[data-group="g0"]')
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.focus()
    page.keyboard.press("Enter")
    assert page.locator('#leaderboard button.toggle[data-group="g0"]').get_attribute("aria-expanded") == "true"
    opened = page.locator('#leaderboard button.sort[data-column^="t:"]').all_inner_texts()
    assert opened and all(name.startswith(groups[0]) for name in opened)  # drawn near the view, all of group 0
    assert "open=g0" in page.url
    # sort from the keyboard, then hide the metadata columns
    page.locator('#leaderboard button.sort[data-column="meta:n_parameters"]').focus()
    page.keyboard.press("Enter")
    assert page.locator('th[aria-sort="descending"] button[data-column="meta:n_parameters"]').count() == 1
    parameters = dict(big.metadata.select("system", "n_parameters").iter_rows())
    assert watched.rows() == sorted(parameters, key=lambda s: (-parameters[s], s.lower()))[:50]
    page.locator("details.families summary").click()
    page.locator("#show-meta").focus()
    page.keyboard.press("Space")
    assert page.locator('#leaderboard [data-column^="meta:"]').count() == 0 and "hide=meta" in page.url


def test_each_method_draws_the_interval_its_snapshot_stores_or_says_why_not(ranked_warehouse, site, watched):
    """SuperGLUE: every method's whisker is its snapshot's stored bootstrap interval, read with sql; exact kemeny
    on 24 systems stores none (its note says why) and draws the pairwise fallback, as the page says."""
    stored = _sql(ranked_warehouse.warehouse, """
        SELECT m.method, i.system, i.rank_best, i.rank_worst, i.n_resamples, i.seed
        FROM snapshot_intervals AS i JOIN latest_snapshots AS m ON m.snapshot_id = i.snapshot
        WHERE m.benchmark = 'superglue'""")
    watched.open(_benchmark_url(site, SUPERGLUE))
    labels = watched.page.locator("#method option").all_inner_texts()
    drawn = {}
    for k, label in enumerate(labels):
        watched.page.select_option("#method", index=k)
        drawn[label.split()[0]] = (dict(zip(watched.rows(), (t.strip() for t in watched.column("interval")))),
                                   watched.page.locator("#interval-source").inner_text())
    assert set(drawn) == {"mean", "borda", "kemeny", "copeland", "minimax", "borda_partial"}
    assert set(stored.get_column("method")) == set(drawn) - {"kemeny"}
    for method in set(drawn) - {"kemeny"}:
        rows = stored.filter(pl.col("method") == method)
        shown, note = drawn[method]
        expected = {s: f"{lo}–{hi}" for s, lo, hi in rows.select("system", "rank_best", "rank_worst").iter_rows()}
        # a system the method did not rank (not complete, for a method that needs complete ballots) has no range
        assert shown == expected | {s: "—" for s in set(shown) - set(expected)}
        assert f"{method}'s own interval, stored with its snapshot" in note
        assert "over 200 bootstrap resamples of the voters, seed 0" in note
    assert drawn["mean"][0] != drawn["borda"][0]  # the whisker follows the method
    scores = _sql(ranked_warehouse.warehouse, "SELECT * FROM scores WHERE benchmark = 'superglue'")
    metrics = _sql(ranked_warehouse.warehouse, "SELECT * FROM metrics WHERE benchmark = 'superglue'")
    pairs = pairwise_confidence(make_ballots(scores, metrics, level="task").collect())
    sure, n_systems = pairs.filter(pl.col("excludes_half")), pairs.get_column("system_a").n_unique()
    shown, note = drawn["kemeny"]
    assert shown == {s: f"{1 + sure.filter((pl.col('system_b') == s) & (pl.col('probability') > 0.5)).height}–"
                        f"{n_systems - sure.filter((pl.col('system_a') == s) & (pl.col('probability') > 0.5)).height}"
                     for s in shown}
    assert "pairwise fallback for kemeny" in note and "exact kemeny on 24 systems (over 12)" in note
