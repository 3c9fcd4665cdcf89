"""Helpers of the reliability tests: a corrected leaderboard, and the rankings a home serves."""

from pathlib import Path

import polars as pl

from scorehouse.flows.catalog_state import ensure_current_catalog
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse

REPO = Path(__file__).resolve().parents[2]
SUPERGLUE = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - SuperGLUE.csv"


def corrected_superglue(folder: Path) -> Path:
    """SuperGLUE's leaderboard (same file name: the same source) with ERNIE 3.0's BoolQ, COPA and RTE
    cut to 7.01: a correction that costs the old winner its first place."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = SUPERGLUE.read_text(encoding="utf-8").splitlines(keepends=True)
    winner = lines[1].split(",")
    assert winner[2] == "ERNIE 3.0"
    winner[5], winner[7], winner[10] = "7.01", "7.01", "7.01"
    lines[1] = ",".join(winner)
    target = folder / SUPERGLUE.name
    target.write_text("".join(lines), encoding="utf-8")
    return target


def served_rankings(home: Path) -> pl.DataFrame:
    """What ``latest_rankings`` serves, without snapshot ids or times (they differ between homes)."""
    warehouse = Warehouse(home)
    ensure_current_catalog(warehouse)
    with connect(warehouse) as con:
        frame = query_frame(con, "SELECT benchmark, level, method, parameters, system, score, rank, tied "
                                 "FROM latest_rankings")
    return frame.sort(frame.columns)
