"""Screenshots of a built site for docs/site/ (issue 28): the index, a benchmark page and a system page.

Run: ``.venv/bin/python -m benchmarks.site_screenshots SITE_DIR BENCHMARK_PAGE SYSTEM_PAGE [--output docs/site]
[--arena SITE_DIR/benchmarks/PAGE.html#a.category=VALUE]``, the pages relative to SITE_DIR (``scorehouse run``
writes the site of the bundled data to ``<home>/site``; the bundled data has no battles, so the arena view
is taken from another site, with its filter in the address).  Each page is opened from ``file://`` in
Debian's headless Chromium and captured at 1400 x 1000 once drawn; the arena view alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.bench_site import CHROMIUM, CHROMIUM_ARGS


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the site folder (scorehouse site --output)")
    parser.add_argument("benchmark", help="a benchmark page, e.g. benchmarks/mteb_task_level-01866237.html")
    parser.add_argument("system", help="a system page, e.g. systems/<benchmark page>/<system>.html")
    parser.add_argument("--output", type=Path, default=Path("docs/site"), help="folder of the PNG files")
    parser.add_argument("--arena", help="a battles page with its address fragment: its arena view is arena.png")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.output.mkdir(parents=True, exist_ok=True)
    shots = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, page_path in (("index", "index.html"), ("benchmark", args.benchmark), ("system", args.system)):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto((args.site / page_path).resolve().as_uri(), wait_until="load")
            page.wait_for_selector("body[data-ready]")
            shots.append(args.output / f"{name}.png")
            page.screenshot(path=str(shots[-1]))
            page.close()
        if args.arena:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            path, _, fragment = args.arena.partition("#")
            page.goto(Path(path).resolve().as_uri() + "#" + fragment, wait_until="load")
            page.wait_for_selector("body[data-ready]")
            shots.append(args.output / "arena.png")
            page.locator("#arena").screenshot(path=str(shots[-1]))
            page.close()
        browser.close()
    for shot in shots:
        print(shot)
    return shots


if __name__ == "__main__":
    main()
