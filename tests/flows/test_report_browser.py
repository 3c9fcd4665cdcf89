"""The HTML report of real snapshots, opened in a real headless Chromium."""

import shutil
from pathlib import Path

import pytest

from flows.ingest import ingest_flow
from flows.rank import rank_flow
from flows.report import write_report
from tests.flows.conftest import SUPERGLUE, VALUE
from warehouse.queries import latest_snapshot_ids
from warehouse.storage import Warehouse

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    if not CHROMIUM.exists():
        pytest.fail("Chromium is needed for this test and is not installed: run 'make browser' "
                    "(it installs Debian's chromium with apt-get)")
    home = str(tmp_path_factory.mktemp("report") / "wh")
    ingest_flow([str(SUPERGLUE), str(VALUE)], home=home)
    rank_flow(home=home)
    warehouse = Warehouse(home)
    return write_report(warehouse, latest_snapshot_ids(warehouse), tmp_path_factory.mktemp("out") / "report.html")


def test_the_report_renders_in_chromium_without_errors(report, tmp_path):
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(report.as_uri())
        assert page.title() == "scorehouse ranking report"
        sections = page.locator("section.benchmark")
        assert sections.count() == 2
        text = page.inner_text("body")
        for name in ("ERNIE 3.0", "craig.starr (ensemble) Kakao Brain", "DuKG Baidu & KG"):
            assert name in text
        assert "<!--" not in text and "Paper" not in text.split("craig.starr")[1][:40]  # VALUE names cleaned
        assert page.locator("table.board").count() >= 2 and page.locator("svg").count() >= 2
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        browser.close()
    assert problems == []
    assert (tmp_path / "report.png").stat().st_size > 10_000
    shutil.copyfile(tmp_path / "report.png", report.with_suffix(".png"))
