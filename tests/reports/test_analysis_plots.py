"""The analysis plots: well-formed SVG, one line and band per method, escaped names, right coordinates."""

import xml.etree.ElementTree as ET

import polars as pl

from scorehouse.reports.analysis_plots import HEIGHT, MARGIN_BOTTOM, MARGIN_TOP, band_plot

NS = {"s": "http://www.w3.org/2000/svg"}


def summary():
    return pl.DataFrame({
        "method": ["mean", "mean", "<b>borda</b>", "<b>borda</b>"],
        "setting": [1, 10, 1, 10],
        "tau_mean": [0.2, 1.0, -1.0, 0.5],
        "tau_low": [0.0, 1.0, -1.0, 0.4],
        "tau_high": [0.4, 1.0, -0.8, 0.6],
    })


def test_band_plot_is_well_formed_and_escaped():
    svg = band_plot(summary(), x="setting", title="tau vs tasks & more", x_label="tasks kept")
    root = ET.fromstring(svg)  # raises on malformed XML or unescaped markup
    assert len(root.findall("s:polyline", NS)) == 2 and len(root.findall("s:polygon", NS)) == 2
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "<b>borda</b>" in texts and "tau vs tasks & more" in texts  # shown as text, not markup
    assert "<b>" not in svg.replace("&lt;b&gt;", "")


def test_points_land_at_their_values():
    root = ET.fromstring(band_plot(summary(), x="setting", title="t", x_label="x"))
    lines = {p.get("points") for p in root.findall("s:polyline", NS)}
    borda = next(line for line in lines if line.split()[0].endswith(f",{HEIGHT - MARGIN_BOTTOM}.0"))
    # borda starts at tau = -1 (the bottom of the axis) ...
    assert borda.split()[0].split(",")[1] == f"{HEIGHT - MARGIN_BOTTOM}.0"
    mean = next(line for line in lines if line != borda)
    # ... and the mean ends at tau = 1 (the top)
    assert mean.split()[-1].split(",")[1] == f"{MARGIN_TOP}.0"


def test_empty_summary_says_so():
    assert "no data" in band_plot(summary().head(0), x="setting", title="t", x_label="x")
