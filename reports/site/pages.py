"""The site's files as text (pure: no I/O): HTML shells, per-benchmark data scripts, file names.

Every page is a small shell: its controls and the ``#leaderboard`` table are in
the HTML (the page contract the tests and users rely on), the rows are drawn
by the scripts in ``assets/`` from the page's data file.  Browsers refuse ``fetch()``
from ``file://``, so the data is a ``.js`` file loaded by a ``<script>`` tag
that assigns one global.  The Content-Security-Policy allows the site's own
scripts, styles and images only; nothing inline runs, and nothing is loaded
from elsewhere.  Text from the data (system names were scraped from
leaderboards, some carry markup) is escaped here and set as text by the script.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from typing import Any

from scorehouse.reports.report_html import page_head

CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:"
DATA_GLOBAL = "SCOREHOUSE_DATA"
SITE_TITLE = "scorehouse leaderboards"


def slug(name: str) -> str:
    """A file name for ``name``: its safe characters (at most 40) and a short hash, so two names never collide."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:40] or "x"
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def data_script(data: Any) -> str:  # noqa: ANN401 - JSON-ready data
    """The data file of a page: one assignment of compact JSON (a JS literal); NaN and infinities are null (missing)."""
    return f"window.{DATA_GLOBAL} = {json.dumps(_finite(data), separators=(',', ':'), allow_nan=False, ensure_ascii=False)};\n"


def _finite(value: Any) -> Any:  # noqa: ANN401
    """``value`` with every non-finite float replaced by None (JSON has no NaN; the page shows a dash)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


# The site's scripts, in the order they load (each adds to ``window.scorehouse``; pages.js draws the page).
SCRIPTS = ("base.js", "views.js", "benchmark.js", "pages.js")


def _shell(title: str, root: str, page: str, data: str, body: str, attributes: str = "") -> str:
    scripts = "\n".join(f'<script src="{root}assets/{name}"></script>' for name in SCRIPTS)
    return f"""{page_head(title, CONTENT_SECURITY_POLICY, f'<link rel="stylesheet" href="{root}assets/site.css">')}
<body data-page="{page}"{attributes}>
<header class="top"><a href="{root}index.html">{_e(SITE_TITLE)}</a></header>
<main id="main">
{body}
</main>
<script src="{root}{data}"></script>
{scripts}
</body>
</html>
"""


def index_page() -> str:
    body = f"""<h1>{_e(SITE_TITLE)}</h1>
<p class="lead">Every benchmark of the warehouse, ranked by several aggregation methods. The agreement column is the
smallest Kendall tau between two methods' rankings: near 1, the methods agree; low, the choice of method decides.</p>
<div class="controls"><label>Search benchmarks <input type="search" id="search" autocomplete="off"></label></div>
<div class="scroll"><table id="benchmarks" class="board"><caption>Benchmarks</caption><thead></thead><tbody></tbody></table></div>"""
    return _shell(SITE_TITLE, "", "index", "data/index.js", body)


def benchmark_page(title: str, data_file: str) -> str:
    body = f"""<h1 id="title">{_e(title)}</h1>
<p class="meta" id="facts"></p>
<div class="notes" id="notes"></div>
<form class="controls" id="controls" role="search">
<label>Method <select id="method"></select></label>
<span id="method-summary" class="summary" aria-live="polite"></span>
<label>Search systems <input type="search" id="search" autocomplete="off"></label>
<label>Minimum coverage <input type="number" id="min-coverage" min="0" step="1" inputmode="numeric"></label>
<span id="metadata-filters"></span>
<details class="families"><summary>Column groups shown</summary><fieldset id="groups"><legend>Column groups</legend></fieldset></details>
</form>
<p id="interval-source" class="note" aria-live="polite"></p>
<p id="status" class="status" aria-live="polite"></p>
<div class="scroll"><table id="leaderboard" class="board"><caption>Leaderboard</caption><thead></thead><tbody></tbody></table></div>
<nav id="pager" class="pager" aria-label="pages of the leaderboard"></nav>
<section id="views"></section>"""
    return _shell(title, "../", "benchmark", data_file, body)


def system_page(system: str, benchmark_title: str, data_file: str, index: int) -> str:
    body = f"""<h1 id="title">{_e(system)}</h1>
<p class="meta">on <a id="benchmark-link" href="#">{_e(benchmark_title)}</a></p>
<section id="system"></section>"""
    return _shell(f"{system} · {benchmark_title}", "../../", "system", data_file, body, f' data-system="{index}"')
