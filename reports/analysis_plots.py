"""Inline SVG plots of the analysis tables for the HTML report (pure: strings in, string out).

``band_plot`` draws one line per method with a shaded band: Kendall tau to the
reference ranking against the number of tasks kept, or against the missing
rate, from the ``analysis_summaries`` table (``tau_mean`` between ``tau_low``
and ``tau_high``).  The output is deterministic and self-contained (no
scripts, no external resources), every text is escaped.
"""

from __future__ import annotations

from html import escape

import polars as pl

WIDTH, HEIGHT = 560, 300
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 52, 150, 28, 42
# Colour-blind-safe palette (Okabe and Ito, 2008); methods beyond it reuse colours in order.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    return start if high == low else start + (value - low) / (high - low) * (end - start)


def method_colours(methods: list[str]) -> dict[str, str]:
    """One colour per method, the same in every plot of a page."""
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(sorted(set(methods)))}


def band_plot(
    summary: pl.DataFrame,
    *,
    x: str,
    title: str,
    x_label: str,
    y_label: str = "Kendall tau",
    colours: dict[str, str] | None = None,
) -> str:
    """An SVG line-and-band plot of ``summary`` (columns ``method``, ``x``, ``tau_mean``, ``tau_low``, ``tau_high``).

    ``colours`` maps methods to colours (default: :func:`method_colours` of this summary).
    """
    if summary.height == 0:
        return f'<p class="empty">{escape(title)}: no data</p>'
    colours = colours or method_colours(summary.get_column("method").to_list())
    data = summary.select("method", pl.col(x).cast(pl.Float64).alias("x"), "tau_mean", "tau_low", "tau_high").sort("method", "x")
    x_low, x_high = data["x"].min(), data["x"].max()
    y_low = min(-1.0 if data["tau_low"].min() < 0 else 0.0, data["tau_low"].min())
    y_high = 1.0
    left, right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    top, bottom = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM

    def px(value: float) -> float:
        return round(_scale(value, x_low, x_high, left, right), 1)

    def py(value: float) -> float:
        return round(_scale(value, y_low, y_high, bottom, top), 1)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{escape(title)}">',
        f'<text x="{left}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>',
    ]
    for tick in (y_low, (y_low + y_high) / 2, y_high):
        parts.append(f'<text x="{left - 6}" y="{py(tick) + 4}" font-size="10" text-anchor="end">{tick:.2g}</text>')
    for tick in sorted({x_low, (x_low + x_high) / 2, x_high}):
        parts.append(f'<text x="{px(tick)}" y="{bottom + 14}" font-size="10" text-anchor="middle">{tick:.3g}</text>')
    parts.append(f'<text x="{(left + right) / 2}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">{escape(x_label)}</text>')
    parts.append(
        f'<text x="12" y="{(top + bottom) / 2}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {(top + bottom) / 2})">{escape(y_label)}</text>'
    )
    for index, (method, rows) in enumerate(data.group_by("method", maintain_order=True)):
        colour = colours[method[0]]
        xs, means, lows, highs = (rows[c].to_list() for c in ("x", "tau_mean", "tau_low", "tau_high"))
        band = [f"{px(a)},{py(b)}" for a, b in zip(xs, highs, strict=True)]
        band += [f"{px(a)},{py(b)}" for a, b in zip(reversed(xs), reversed(lows), strict=True)]
        line = " ".join(f"{px(a)},{py(b)}" for a, b in zip(xs, means, strict=True))
        parts.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.15" stroke="none"/>')
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        legend_y = top + 14 * index
        parts.append(f'<rect x="{right + 12}" y="{legend_y - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{right + 26}" y="{legend_y + 1}" font-size="11">{escape(str(method[0]))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
