"""The HTML report opened in a real headless Chromium: it renders, shows the right names, logs no error.

Needs Debian's Chromium at /usr/bin/chromium (``make browser`` installs it) and
the ``playwright`` Python package (the ``test`` extra), which drives that
browser: Playwright's own browser download is never used.  A missing browser
fails the tests, it does not skip them.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from scorehouse.reports.report import write_report

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
VALUE_NAMES = [  # VALUE's names as the dump has them carry newlines and an HTML comment; cleaned, then escaped
    "craig.starr (ensemble) Kakao Brain",
    "DuKG Baidu & KG",
    "HERO (AT->ST, PT+FT) VALUE baseline",
    "HERO (ST, PT+FT) VALUE baseline",
    "HERO (AT->ST, FT-only) VALUE baseline",
    "HERO (ST, FT-only) VALUE baseline",
    "Human VALUE baseline",
]


@pytest.fixture(scope="module")
def browser():  # noqa: ANN201
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run 'make browser' "
                    f"(as root: apt-get update && apt-get install -y chromium)", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package 'playwright' is missing: pip install -e '.[test]' "
                    "(never 'playwright install': the tests drive Debian's Chromium)", pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def opened(browser, ranked_warehouse, tmp_path_factory):  # noqa: ANN001, ANN201
    """The report of the test warehouse, loaded in a page, with every console message, page error and request."""
    report = write_report(ranked_warehouse.warehouse, ranked_warehouse.snapshot_ids,
                          tmp_path_factory.mktemp("browser") / "report.html")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    console, errors, requests = [], [], []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report.as_uri(), wait_until="load")
    yield page, report, console, errors, requests
    page.close()


def test_report_renders_one_section_per_benchmark(opened):
    page, _, _, _, _ = opened
    assert page.title() == "scorehouse ranking report"
    assert page.locator("h1").inner_text() == "scorehouse ranking report"
    assert page.locator("section.benchmark").count() == 2
    assert page.locator("section.benchmark h2").all_inner_texts() == ["superglue (task level)", "value (task level)"]
    for section in ("superglue--task", "value--task"):
        heatmap = page.locator(f'section[id="{section}"] svg')
        box = heatmap.bounding_box()
        assert heatmap.is_visible() and box is not None and box["width"] > 200 and box["height"] > 100


def test_system_names_are_shown_as_text(opened):
    page, report, _, _, _ = opened
    value = page.locator('section[id="value--task"] table.board').first.locator("td.system").all_inner_texts()
    assert value == VALUE_NAMES
    superglue = page.locator('section[id="superglue--task"] table.board').first.locator("td.system").all_inner_texts()
    assert superglue[0] == "ERNIE 3.0" and len(superglue) == 24
    source = report.read_text(encoding="utf-8")
    assert "DuKG Baidu &amp; KG" in source and "HERO (AT-&gt;ST, PT+FT) VALUE baseline" in source
    # no markup of the dumps survived into the page (their comments would hide text)
    assert page.locator("body").inner_text().count("<!--") == 0
    labels = page.locator('section[id="value--task"] svg g.cell title').all_text_contents()
    assert any(t.startswith("P(DuKG Baidu & KG beats craig.starr (ensemble) Kakao Brain) = ") for t in labels)


def test_no_console_error_no_page_error_no_request_but_the_page(opened):
    page, report, console, errors, requests = opened
    page.locator('section[id="value--task"] details').first.click()  # open the interval table
    assert page.locator('section[id="value--task"] table.pairs tbody tr').count() == 21  # 7 systems, 21 pairs
    assert [m for m in console if m[0] in ("error", "warning")] == []
    assert errors == []
    assert requests == [report.as_uri()]


def test_screenshot(opened, tmp_path):
    page, _, _, _, _ = opened
    shot = tmp_path / "value.png"
    page.locator('section[id="value--task"]').screenshot(path=str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 800 and height > 600
