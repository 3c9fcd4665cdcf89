"""Renderers of ranking snapshots: the HTML report, the side-by-side leaderboard, the analysis plots (no flows, no Prefect)."""
