"""Build the static leaderboard site (``scorehouse site``): gather, lay out the files, write the folder at once.

Layout of ``DIR``::

    index.html                      every benchmark (data/index.js)
    benchmarks/<page>.html          a benchmark's leaderboard and views (data/<page>.js)
    systems/<page>/<system>.html    a system on that benchmark (the same data file)
    data/*.js                       the data, one global assigned per file
    assets/*.js, assets/site.css    the code, the same for every page (package data)

The folder is written aside and swapped in whole (:func:`warehouse.atomic.write_tree`).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from scorehouse.reports.report import report_page
from scorehouse.reports.site.gather import site_inputs, site_sections
from scorehouse.reports.site.model import BenchmarkInput, benchmark_data, index_entry
from scorehouse.reports.site.pages import SCRIPTS, benchmark_page, data_script, index_page, slug, system_page
from scorehouse.warehouse.atomic import write_text, write_tree
from scorehouse.warehouse.storage import Warehouse

ASSETS = (*SCRIPTS, "site.css")


def build_site(warehouse: Warehouse, snapshot_ids: list[str], output: str | Path) -> Path:
    """Write the site of these snapshots (``--latest``: every method's newest) to the folder ``output``."""
    return write_tree(site_files(site_inputs(warehouse, site_sections(warehouse, snapshot_ids))), Path(output))


def build_report_and_site(
    warehouse: Warehouse, snapshot_ids: list[str], report: str | Path, site: str | Path
) -> tuple[Path, Path]:
    """The HTML report (:func:`reports.report.write_report`) and the site (:func:`build_site`) of the same
    snapshots from one computation of their sections (scores, pairwise tables, coverage): ``scorehouse run``."""
    sections = site_sections(warehouse, snapshot_ids)
    report_path = write_text(report_page(sections), Path(report))
    return report_path, write_tree(site_files(site_inputs(warehouse, sections)), Path(site))


def page_title(inputs: BenchmarkInput) -> str:
    """``glue (task level)``; a battles page names its battle selection (each selection is a page)."""
    selection = f": {inputs.selection}" if inputs.selection else ""
    return f"{inputs.benchmark} ({inputs.level} level{selection})"


def site_files(benchmarks: list[BenchmarkInput]) -> dict[str, str]:
    """Every file of the site: relative path -> text."""
    out = {f"assets/{name}": files("scorehouse.reports.site").joinpath("assets", name).read_text(encoding="utf-8")
           for name in ASSETS}
    entries = []
    for inputs in benchmarks:
        title = page_title(inputs)
        page = slug(title)
        data = benchmark_data(inputs)
        data["title"] = title
        data["page"] = page
        data["system_pages"] = [slug(s) for s in data["systems"]]
        data_file = f"data/{page}.js"
        out[data_file] = data_script(data)
        out[f"benchmarks/{page}.html"] = benchmark_page(title, data_file)
        for i, (system, system_slug) in enumerate(zip(data["systems"], data["system_pages"])):
            out[f"systems/{page}/{system_slug}.html"] = system_page(system, title, data_file, i)
        entries.append({**index_entry(data, f"benchmarks/{page}.html"), "title": title})
    out["data/index.js"] = data_script(_index(entries))
    out["index.html"] = index_page()
    return out


def _index(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"benchmarks": sorted(entries, key=lambda e: e["title"])}
