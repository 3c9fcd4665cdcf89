"""Fixtures of the flow tests: small real leaderboards ingested into a fresh warehouse."""

import shutil
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.transforms.rank_plan import MethodRun, default_runs
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.queries import latest_snapshot_ids
from scorehouse.warehouse.storage import Warehouse

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "data" / "bundled" / "vote_and_rank" / "tables"
SUPERGLUE = TABLES / "leaderboards - SuperGLUE.csv"
VALUE = TABLES / "leaderboards - VALUE.csv"


@pytest.fixture
def dumps(tmp_path: Path) -> Path:
    """A folder with copies of two real leaderboards the test may edit."""
    folder = tmp_path / "dumps"
    folder.mkdir()
    for source in (SUPERGLUE, VALUE):
        shutil.copyfile(source, folder / source.name)
    return folder


def sql(home: str | Path, query: str) -> pl.DataFrame:
    """``query`` on the catalog of the warehouse at ``home``."""
    with connect(Warehouse(home)) as con:
        return query_frame(con, query)


def snapshot_files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.glob("snapshot*/**/*.parquet"))}


@dataclass(frozen=True)
class RankedWarehouse:
    warehouse: Warehouse
    snapshot_ids: list[str]


@pytest.fixture(scope="session")
def ranked_warehouse(tmp_path_factory: pytest.TempPathFactory) -> RankedWarehouse:
    """SuperGLUE and VALUE ingested from the bundled dumps and ranked, by name, with the methods whose published
    reference numbers the report tests check (the defaults of complete leaderboards, and borda_partial)."""
    home = tmp_path_factory.mktemp("report") / "warehouse"
    report = ingest_flow([str(SUPERGLUE), str(VALUE)], home=str(home))
    assert [f.status for f in report.files] == ["loaded", "loaded"]
    runs = [MethodRun(run.method, run.params) for run in default_runs("task", False)] + [MethodRun("borda_partial")]
    outcomes = rank_flow(home=str(home), runs=runs)
    assert [(o.benchmark, o.level) for o in outcomes] == [("superglue", "task"), ("value", "task")]
    assert not [m.error for o in outcomes for m in o.methods if m.error]
    warehouse = Warehouse(home)
    return RankedWarehouse(warehouse, latest_snapshot_ids(warehouse))
