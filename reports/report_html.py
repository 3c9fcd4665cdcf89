"""The HTML report of ranking snapshots, rendered as one self-contained page (pure: no I/O).

The page needs nothing but itself: CSS is inline, the heatmaps are inline SVG,
there is no script, no web font and no image, and a Content-Security-Policy
forbids loading anything, so a page that tried would say so in the browser's
console.  Every text that comes from the data (system names were scraped from
leaderboards and some carried markup) is escaped.  The same sections give the
same bytes: nothing depends on the clock, on dict or set order, or on the
machine.

Per (benchmark, level) section: the leaderboard under every method side by
side (systems in the order of the first method, with the rank change against
the mean ranking), the heatmap of pairwise win probabilities with their
Hoeffding intervals (Himmi et al. 2023, arXiv:2305.10284), the agreement of
the methods (Kendall tau-b and top-k agreement) and the snapshots' metadata.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from scorehouse.reports.leaderboard import rank_change_arrow

TITLE = "scorehouse ranking report"
# Everything inline; nothing may be fetched (a violation is logged as a console error).
CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
LABEL_CHARS = 44  # longer system names are shortened in the heatmap (the full name is in its tooltip)
CELL_W, CELL_H, CHAR_W = 40, 24, 6.4

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 0 auto; max-width: 1400px; padding: 1rem 2rem; color: #1b1b1b; background: #fff; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2.5rem; border-bottom: 2px solid #ccd; padding-bottom: .2rem; }
h3 { margin: 1.4rem 0 .4rem; }
p.lead, .note { color: #444; } .note { font-size: .9rem; }
ul.notes { font-size: .9rem; color: #7a4b00; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; }
th, td { border: 1px solid #dde; padding: .2rem .45rem; vertical-align: top; }
th { background: #f3f4f8; }
table.board td.num, table.matrix td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.board td.system { white-space: nowrap; }
table.board tbody tr:nth-child(even) { background: #fafafc; }
td.missing { color: #999; text-align: center; }
td.coverage { position: relative; min-width: 4em; }
td.coverage span.bar { position: absolute; left: 0; top: 15%; height: 70%; background: #d8e3f0; z-index: -1; }
.up { color: #137333; } .down { color: #b3261e; } .same { color: #888; }
.tie { color: #888; font-size: .75em; }
table.meta td { font-size: .8rem; } table.meta td.nowrap, table.meta code { white-space: nowrap; }
table.meta td.notes { min-width: 22rem; } table.meta ul { margin: 0; padding-left: 1.1rem; }
.matrices { display: flex; flex-wrap: wrap; gap: 2rem; }
svg text { font-family: inherit; }
footer { margin-top: 3rem; color: #666; font-size: .8rem; border-top: 1px solid #dde; padding-top: .5rem; }
"""


@dataclass(frozen=True)
class MethodColumn:
    """One snapshot shown as a column: its label, manifest and ranking (system, score, rank, tied)."""

    label: str
    manifest: Mapping[str, Any]
    ranking: pl.DataFrame
    is_reference: bool = False


@dataclass(frozen=True)
class Pairwise:
    """Pairwise win probabilities among the shown systems (rows of ``aggregators.pairwise_confidence()``)."""

    systems: tuple[str, ...]
    table: pl.DataFrame
    delta: float
    total_systems: int


@dataclass(frozen=True)
class BattleMatrices:
    """Win rates and battle counts among the shown systems (rows of ``aggregators.arena_matrices()``)."""

    systems: tuple[str, ...]
    table: pl.DataFrame
    total_systems: int


@dataclass(frozen=True)
class Agreement:
    """Kendall tau-b and top-k agreement of every two columns (None where undefined), with their common systems."""

    labels: tuple[str, ...]
    kendall_tau: tuple[tuple[float | None, ...], ...]
    top_k: tuple[tuple[float | None, ...], ...]
    common: tuple[tuple[int, ...], ...]
    k: int


@dataclass(frozen=True)
class Section:
    """Everything shown for one (benchmark, level)."""

    benchmark: str
    level: str
    systems: tuple[str, ...]
    columns: tuple[MethodColumn, ...]
    pairwise: Pairwise | None
    agreement: Agreement | None
    notes: tuple[str, ...] = ()
    robustness: tuple[str, ...] = ()  # SVG plots from reports.analysis_plots (already escaped)
    # voters that scored each system (the snapshots' coverage); empty when they were stored without one
    coverage: Mapping[str, int] = field(default_factory=dict)
    # battles sections (level "battles"): the battles selected, the arena leaderboard, the matrices
    selection: str = ""
    arena: pl.DataFrame | None = None
    matrices: BattleMatrices | None = None
    # the current scores and metric catalog a scores section was computed from: not shown on this page,
    # kept for the leaderboard site (reports.site), which would otherwise read them a second time
    scores: pl.DataFrame | None = None
    metrics: pl.DataFrame | None = None


def page_head(title: str, policy: str, style: str) -> str:
    """The opening of every page we write (the report's, the site's): its Content-Security-Policy, title and style."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title>
{style}
</head>"""


def render_report(sections: Sequence[Section], *, title: str = TITLE) -> str:
    """The whole page as a string."""
    n_snapshots = sum(len(s.columns) for s in sections)
    toc = "".join(
        f'<li><a href="#{_anchor(s)}">{_e(s.benchmark)} ({_e(s.level)} level{_e(_selected(s))})</a>: '
        f"{len(s.columns)} method(s), {len(s.systems)} systems</li>"
        for s in sections
    )
    body = "\n".join(_section(s) for s in sections)
    return f"""{page_head(title, CONTENT_SECURITY_POLICY, f"<style>{CSS}</style>")}
<body>
<header>
<h1>{_e(title)}</h1>
<p class="lead">{n_snapshots} ranking snapshot(s) of {len(sections)} benchmark(s).
Arrows give a system's rank change against the mean ranking: <span class="up">↑2</span> = two places
higher than by the mean, <span class="down">↓1</span> = one place lower, <span class="same">=</span> = the same place.</p>
<nav><ul>{toc}</ul></nav>
</header>
<main>
{body}
</main>
<footer>Written by scorehouse from the snapshots listed in each section; a self-contained page
(no scripts, fonts or images are loaded).</footer>
</body>
</html>
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _anchor(section: Section) -> str:
    selected = f"--{section.selection}" if section.selection else ""
    return _e(f"{section.benchmark}--{section.level}{selected}".replace(" ", "_"))


def _selected(section: Section) -> str:
    return f": {section.selection}" if section.selection else ""


def _score(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.4g}"


def _section(section: Section) -> str:
    notes = "".join(f"<li>{_e(n)}</li>" for n in section.notes)
    return f"""<section id="{_anchor(section)}" class="benchmark">
<h2>{_e(section.benchmark)} <small>({_e(section.level)} level{_e(_selected(section))})</small></h2>
{f'<ul class="notes">{notes}</ul>' if notes else ''}
<h3>Leaderboards</h3>
{_leaderboard(section)}
{_battles(section) if section.level == "battles" else _pairwise_part(section)}
<h3>Agreement between methods</h3>
{_agreement(section.agreement)}
{_robustness(section.robustness)}
<h3>Snapshots</h3>
{_metadata(section.columns)}
</section>"""


def _pairwise_part(section: Section) -> str:
    return f"<h3>Pairwise win probabilities</h3>\n{_pairwise(section.pairwise)}"


def _battles(section: Section) -> str:
    """The arena leaderboard (when the section has an arena snapshot) and the win-rate and battle-count heatmaps."""
    parts = ["<h3>Arena leaderboard</h3>", _arena(section.arena), "<h3>Win rates and battles</h3>"]
    matrices = section.matrices
    if matrices is None or len(matrices.systems) < 2:
        parts.append('<p class="note">No battles to show (see the notes above).</p>')
        return "\n".join(parts)
    rows = {(r["system_a"], r["system_b"]): r for r in matrices.table.iter_rows(named=True)}
    most = max((r["battles"] for r in rows.values()), default=0) or 1
    capped = (f" Only the top {len(matrices.systems)} of the {matrices.total_systems} systems (by the first method) "
              "are shown." if len(matrices.systems) < matrices.total_systems else "")

    def rate(a: str, b: str) -> tuple[float, str, str] | None:
        r = rows[(a, b)]
        if r["battles"] == 0:
            return None
        return r["win_rate"], f"{r['win_rate']:.2f}", f"{a} won {r['win_rate']:.3f} of {r['battles']} battle(s) against {b} (ties half)"

    def count(a: str, b: str) -> tuple[float, str, str] | None:
        r = rows[(a, b)]
        if r["battles"] == 0:
            return None
        return 0.5 + 0.5 * r["battles"] / most, str(r["battles"]), f"{r['battles']} battle(s) between {a} and {b}"

    parts.append(f"""<p class="note">Cell (row <i>a</i>, column <i>b</i>): the share of their battles <i>a</i> won
(a tie counts half), and how many battles they fought; an empty cell: they never met.{capped}</p>
<div class="matrices">{_heatmap(matrices.systems, rate, "win-rate", "win rates")}
{_heatmap(matrices.systems, count, "battles", "battle counts")}</div>""")
    return "\n".join(parts)


def _heatmap(
    systems: tuple[str, ...], cell: Callable[[str, str], tuple[float, str, str] | None], kind: str, label: str,
    outlined: Callable[[str, str], bool] | None = None,
) -> str:
    """An SVG heatmap of ``cell(a, b)`` = (shade in [0, 1], text, tooltip), or None for an empty cell;
    ``outlined(a, b)``: the cells drawn with a dark outline (the others with a white one)."""
    n = len(systems)
    label_w = round(min(max(len(_short(s)) for s in systems), LABEL_CHARS) * CHAR_W + 8 * len(str(n)) + 24)
    top = 22
    width, height = label_w + n * CELL_W + 4, top + n * CELL_H + 4
    parts = [f'<text x="{label_w + j * CELL_W + CELL_W / 2:g}" y="{top - 7}" text-anchor="middle" font-size="11">'
             f"{j + 1}</text>" for j in range(n)]
    for i, a in enumerate(systems):
        y = top + i * CELL_H
        parts.append(f'<text x="{label_w - 6}" y="{y + CELL_H / 2 + 4:g}" text-anchor="end" font-size="11">'
                     f"<title>{_e(a)}</title>{i + 1}. {_e(_short(a))}</text>")
        for j, b in enumerate(systems):
            x = label_w + j * CELL_W
            value = None if i == j else cell(a, b)
            if value is None:
                parts.append(f'<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="#e4e4e8"/>')
                continue
            shade, text, tip = value
            stroke = ("" if outlined is None else ' stroke="#111" stroke-width="2"' if outlined(a, b)
                      else ' stroke="#fff" stroke-width="1"')
            parts.append(
                f'<g class="cell" data-a="{_e(a)}" data-b="{_e(b)}"><title>{_e(tip)}</title>'
                f'<rect x="{x + 1}" y="{y + 1}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="{_diverging(shade)}"{stroke}/>'
                f'<text x="{x + CELL_W / 2:g}" y="{y + CELL_H / 2 + 4:g}" text-anchor="middle" font-size="10" '
                f'fill="{_ink(shade)}">{_e(text)}</text></g>'
            )
    return (f'<div class="scroll"><svg class="{kind}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_e(label)}">'
            f"{''.join(parts)}</svg></div>")


def _arena(arena: pl.DataFrame | None) -> str:
    if arena is None:
        return ('<p class="note">No arena snapshot of these battles: <code>scorehouse arena --benchmark B</code> '
                "computes one.</p>")
    rows = "".join(
        f'<tr><td class="num">{r["rank"]}</td><td class="num">{r["rank_ub"]}</td><td class="system">{_e(r["system"])}</td>'
        f'<td class="num">{r["rating"]:.1f}</td><td class="num">[{r["lower"]:.1f}, {r["upper"]:.1f}]</td>'
        f'<td class="num">{r["n_battles"]}</td><td class="num">{r["win_rate"]:.3f}</td></tr>'
        for r in arena.sort("rank", "system").iter_rows(named=True)
    )
    return f"""<p class="note">Bradley–Terry ratings on the Elo scale (400 · log10 of the odds, the mean or the
anchor at 1000) with 95% bootstrap intervals; <i>tied rank</i>: 1 + the systems whose lower bound is above this
system's upper bound, the best rank the data cannot exclude.</p>
<div class="scroll"><table class="board arena"><thead><tr><th>rank</th><th>tied rank</th><th>system</th>
<th>rating</th><th>95% interval</th><th>battles</th><th>win rate</th></tr></thead>
<tbody>{rows}</tbody></table></div>"""


def _robustness(plots: tuple[str, ...]) -> str:
    if not plots:
        return ""
    return ('<h3>Robustness</h3>\n<p class="note">From the newest <code>scorehouse analyze</code> of this benchmark: '
            "Kendall tau between each method's ranking of the changed data and its ranking of the full data: "
            "the line is the mean over repetitions, the band spans the 5th to 95th percentile.</p>\n"
            f'<div class="matrices">{"".join(plots)}</div>')


def _leaderboard(section: Section) -> str:
    reference = next((c for c in section.columns if c.is_reference), None)
    ref_rank = dict(zip(reference.ranking["system"], reference.ranking["rank"])) if reference else {}
    shows_change = [reference is not None and not c.is_reference for c in section.columns]
    head_top = "".join(
        f'<th colspan="{3 if change else 2}" data-method="{_e(c.label)}">{_e(c.label)}</th>'
        for c, change in zip(section.columns, shows_change)
    )
    head_sub = "".join(
        "<th>rank</th><th>score</th>" + ('<th title="rank change against the mean">vs mean</th>' if change else "")
        for change in shows_change
    )
    rows_of = [{row["system"]: row for row in c.ranking.iter_rows(named=True)} for c in section.columns]
    coverage_head = (
        '<th rowspan="2" title="voters (tasks, or task-metric-instance triples) that scored the system: '
        'a rank from few voters is weakly supported">voters</th>'
        if section.coverage else ""
    )
    most = max(section.coverage.values(), default=0)
    body = []
    for system in section.systems:
        cells = [f'<td class="system">{_e(system)}</td>']
        if section.coverage:
            cells.append(_coverage_cell(section.coverage.get(system, 0), most))
        for rows, change in zip(rows_of, shows_change):
            row = rows.get(system)
            if row is None:
                span = 3 if change else 2
                cells.append(f'<td class="missing" colspan="{span}" title="not ranked by this method (see the notes)">—</td>')
                continue
            tie = ' <span class="tie" title="tied">tie</span>' if row["tied"] else ""
            cells.append(f'<td class="num">{row["rank"]}{tie}</td><td class="num">{_score(row["score"])}</td>')
            if change:
                cells.append(f'<td class="num">{_arrow(row["rank"], ref_rank.get(system))}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"""<div class="scroll"><table class="board">
<thead><tr><th rowspan="2">system</th>{coverage_head}{head_top}</tr><tr>{head_sub}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody></table></div>"""


def _coverage_cell(voters: int, most: int) -> str:
    """The system's number of voters, with a bar as long as its share of the best-covered system's."""
    width = round(100 * voters / most) if most else 0
    return (
        f'<td class="num coverage" data-voters="{voters}" title="{voters} of at most {most} voters">'
        f'<span class="bar" style="width:{width}%"></span>{voters}</td>'
    )


def _arrow(rank: int, reference: int | None) -> str:
    arrow = rank_change_arrow(rank, reference)
    if not arrow:
        return '<span class="same" title="not ranked by the mean">·</span>'
    kind = {"↑": "up", "↓": "down"}.get(arrow[0], "same")
    return f'<span class="{kind}">{_e(arrow)}</span>'


def _diverging(value: float) -> str:
    """Colour of a value in [0, 1]: red at 0, white at 1/2, blue at 1 (a colour-blind-safe diverging scale)."""
    low, mid, high = (178, 24, 43), (247, 247, 247), (33, 102, 172)
    v = min(max(value, 0.0), 1.0)
    end, t = (low, 1 - 2 * v) if v < 0.5 else (high, 2 * v - 1)
    r, g, b = (round(m + (e - m) * t) for m, e in zip(mid, end))
    return f"#{r:02x}{g:02x}{b:02x}"


def _ink(value: float) -> str:
    return "#fff" if abs(value - 0.5) > 0.33 else "#111"


def _short(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def _pairwise(pairwise: Pairwise | None) -> str:
    if pairwise is None:
        return '<p class="note">Not available for these snapshots (see the notes above).</p>'
    systems = pairwise.systems
    n = len(systems)
    level = f"{100 * (1 - pairwise.delta):g}%"
    cells = {(a, b): row for a, b, row in zip(pairwise.table["system_a"], pairwise.table["system_b"],
                                               pairwise.table.iter_rows(named=True))}

    def probability(a: str, b: str) -> tuple[float, str, str]:
        row = cells[(a, b)]
        p = row["probability"]
        tip = (f"P({a} beats {b}) = {p:.3f}; {level} Hoeffding interval [{row['lower']:.3f}, {row['upper']:.3f}]; "
               f"{row['n']} voter(s) scored both and did not tie them")
        return p, f"{p:.2f}", tip

    capped = (
        f" Only the top {n} of the {pairwise.total_systems} systems (by the first method) are shown."
        if n < pairwise.total_systems else ""
    )
    heatmap = _heatmap(systems, probability, "pairwise", "pairwise win probabilities",
                       outlined=lambda a, b: cells[(a, b)]["excludes_half"])
    return f"""<p class="note">Cell (row <i>a</i>, column <i>b</i>) is the probability that <i>a</i> beats <i>b</i>
on a voter, a missing score imputed uniformly over the compatible rankings (Himmi et al. 2023);
hover a cell for its {level} Hoeffding interval. A dark outline marks the pairs whose interval excludes 1/2.{capped}</p>
{heatmap}
{_interval_table(pairwise, cells, level)}"""


def _interval_table(pairwise: Pairwise, cells: Mapping[tuple[str, str], Mapping[str, Any]], level: str) -> str:
    rows = []
    for i, a in enumerate(pairwise.systems):
        for b in pairwise.systems[i + 1:]:
            row = cells[(a, b)]
            rows.append(
                f"<tr><td>{_e(a)}</td><td>{_e(b)}</td><td class=\"num\">{row['probability']:.3f}</td>"
                f"<td class=\"num\">[{row['lower']:.3f}, {row['upper']:.3f}]</td><td class=\"num\">{row['n']}</td>"
                f"<td>{'yes' if row['excludes_half'] else 'no'}</td></tr>"
            )
    return f"""<details><summary>Every pair with its {level} interval ({len(rows)} pairs)</summary>
<div class="scroll"><table class="board pairs"><thead><tr><th>a</th><th>b</th><th>P(a beats b)</th>
<th>{level} interval</th><th>voters deciding</th><th>separated</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table></div></details>"""


def _agreement(agreement: Agreement | None) -> str:
    if agreement is None:
        return '<p class="note">One method only: nothing to compare.</p>'
    tau = _matrix(agreement, agreement.kendall_tau, "Kendall tau-b", lambda v: (v + 1) / 2, "kendall")
    top = _matrix(agreement, agreement.top_k, f"top-{agreement.k} agreement", lambda v: v, "top-k")
    return f"""<p class="note">Each pair of methods is compared on the systems both ranked (hover a cell for how many).
Kendall tau-b: 1 = same order, -1 = reversed. Top-{agreement.k} agreement: the share of systems the two
top-{agreement.k} sets have in common.</p>
<div class="matrices">{tau}{top}</div>"""


def _matrix(
    agreement: Agreement,
    values: tuple[tuple[float | None, ...], ...],
    caption: str,
    shade: Callable[[float], float],
    kind: str,
) -> str:
    head = "".join(f"<th>{_e(label)}</th>" for label in agreement.labels)
    rows = []
    for i, label in enumerate(agreement.labels):
        cells = []
        for j, column in enumerate(agreement.labels):
            value = values[i][j]
            attrs = f'data-row="{_e(label)}" data-col="{_e(column)}" title="{agreement.common[i][j]} common systems"'
            if value is None or math.isnan(value):
                cells.append(f'<td {attrs}>n/a</td>')
            else:
                tone = shade(value)
                cells.append(f'<td {attrs} style="background:{_diverging(tone)};color:{_ink(tone)}">{value:.3f}</td>')
        rows.append(f"<tr><th>{_e(label)}</th>{''.join(cells)}</tr>")
    return f"""<div class="scroll"><table class="matrix {kind}"><caption>{_e(caption)}</caption>
<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"""


def _metadata(columns: Sequence[MethodColumn]) -> str:
    rows = []
    for c in columns:
        m = c.manifest
        notes = "".join(f"<li>{_e(n)}</li>" for n in (m.get("notes") or []))
        created = m["created_at"].isoformat() if m.get("created_at") is not None else ""
        fingerprint = m.get("input_fingerprint") or ""
        rows.append(
            f"<tr><td>{_e(c.label)}</td><td><code>{_e(m['snapshot_id'])}</code></td><td class=\"nowrap\">{_e(created)}</td>"
            f"<td>{_e(m['method'])}</td><td><code>{_e(_parameters(m.get('parameters')))}</code></td>"
            f"<td class=\"num\">{_e(m.get('n_systems'))}</td><td class=\"num\">{_e(m.get('n_voters'))}</td>"
            f"<td><code title=\"{_e(fingerprint)}\">{_e(fingerprint[:16])}</code></td>"
            f"<td><code>{_e(m.get('code_version') or '')}</code></td>"
            f"<td><code>{_e(m.get('previous_snapshot_id') or '—')}</code></td>"
            f"<td class=\"notes\">{f'<ul>{notes}</ul>' if notes else ''}</td></tr>"
        )
    return f"""<div class="scroll"><table class="meta">
<thead><tr><th>column</th><th>snapshot</th><th>created (UTC)</th><th>method</th><th>parameters</th><th>systems</th>
<th>voters</th><th>input fingerprint</th><th>code version</th><th>previous snapshot</th><th>notes</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table></div>"""


def _parameters(parameters: str | None) -> str:
    """Canonical JSON parameters as ``key=value`` pairs, ``{}`` as "none"."""
    decoded = json.loads(parameters) if parameters else {}
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(decoded.items())) or "none"
