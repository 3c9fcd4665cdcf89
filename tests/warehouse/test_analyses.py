"""Analyses are versioned like snapshots: same request, same id, nothing rewritten; the catalog sees them."""

import polars as pl

from scorehouse.aggregators import build_profile
from scorehouse.aggregators.robustness import summarise
from scorehouse.aggregators.robustness_tasks import task_subsets
from tests.warehouse.conftest import tree_state
from scorehouse.warehouse.analyses import AnalysisRequest, read_analysis, write_analysis
from scorehouse.warehouse.catalog import connect, query_frame, rebuild_catalog
from scorehouse.warehouse.schema import METRICS
from scorehouse.warehouse.storage import Warehouse

BALLOTS = pl.DataFrame(
    {"voter": ["t1"] * 3 + ["t2"] * 3 + ["t3"] * 3, "system": ["a", "b", "c"] * 3,
     "score": [3.0, 2.0, 1.0, 1.0, 3.0, 2.0, 3.0, 1.0, 2.0], "group": ["t1"] * 3 + ["t2"] * 3 + ["t3"] * 3}
)


def request(seed: int) -> AnalysisRequest:
    return AnalysisRequest(benchmark="toy", level="task", experiment="tasks", parameters=f'{{"seed":{seed}}}',
                           input_fingerprint="f" * 64, load_ids=("load1",), code_version="0+test")


def tables(seed: int) -> dict[str, pl.DataFrame]:
    results = task_subsets(build_profile(BALLOTS), ["mean", "borda"], repetitions=5, seed=seed)
    return {"results": results, "summary": summarise(results)}


def test_same_request_same_id_and_nothing_rewritten(home):
    warehouse = Warehouse(home)
    first, new = write_analysis(warehouse, request(1), tables(1))
    state = tree_state(home)
    again, new_again = write_analysis(warehouse, request(1), tables(1))
    assert new and not new_again and again == first
    assert tree_state(home) == state
    other, other_new = write_analysis(warehouse, request(2), tables(2))
    assert other_new and other != first
    manifest, read = read_analysis(warehouse, first)
    assert manifest["experiment"] == "tasks" and sorted(read) == ["results", "summary"]
    assert read["results"].equals(tables(1)["results"])


def test_catalog_views_list_every_analysis_table(home):
    warehouse = Warehouse(home)
    empty = pl.DataFrame(schema=METRICS)
    rebuild_catalog(warehouse, empty)  # no analysis yet: the views exist and are empty
    with connect(warehouse) as con:
        assert query_frame(con, "SELECT count(*) AS n FROM analysis_summaries")["n"][0] == 0
    ids = [write_analysis(warehouse, request(s), tables(s))[0] for s in (1, 2)]
    rebuild_catalog(warehouse, empty)
    with connect(warehouse) as con:
        counts = query_frame(con, "SELECT analysis_id, count(*) AS n FROM analysis_results GROUP BY ALL ORDER BY ALL")
        pairs = query_frame(con, "SELECT count(*) AS n FROM method_pairs")
    assert sorted(counts["analysis_id"]) == sorted(ids)
    assert counts["n"].to_list() == [tables(1)["results"].height] * 2
    assert pairs["n"][0] == 0
