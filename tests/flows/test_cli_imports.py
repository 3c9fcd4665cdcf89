"""Commands import only what they use: no command loads Prefect without a Prefect API; reading commands
load neither scipy nor the methods.

Each command runs through ``main`` in a fresh interpreter (a test process has
imported everything already), on a ranked warehouse, and reports the modules
it loaded.
"""

import subprocess
import sys

import pytest

from tests.flows.conftest import REPO

HEAVY = ("prefect", "scipy", "pandas", "scorehouse.aggregators.registry")
PROBE = """
import sys
from scorehouse.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
print("MODULES", code, heavy)
"""


@pytest.mark.parametrize("args", [
    ["sql", "SELECT count(*) FROM rankings"],
    ["snapshots"],
    ["export", "--latest", "--format", "csv", "--output", "{tmp}/latest.csv"],
])
def test_reading_commands_import_neither_prefect_nor_scipy_nor_pandas(ranked_warehouse, tmp_path, args):
    args = [a.format(tmp=tmp_path) for a in args]
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), "--home", str(ranked_warehouse.warehouse.home), *args],
        cwd=REPO, capture_output=True, text=True, check=True,
    )
    assert result.stdout.splitlines()[-1] == "MODULES 0 []", result.stdout + result.stderr


@pytest.mark.parametrize("args", [
    ["ingest", str(REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv")],
    ["rank", "--benchmark", "glue", "--method", "borda"],
    ["refresh", "--inbox", "{tmp}/inbox"],
])
def test_flow_commands_without_a_prefect_api_do_not_import_prefect(tmp_path, args):
    """The flows run in process: Prefect (1.6-2 s to import) is loaded only to record runs."""
    (tmp_path / "inbox").mkdir()
    home = tmp_path / "wh"
    if args[0] != "ingest":
        subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), "ingest",
                        str(REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv")],
                       cwd=REPO, capture_output=True, check=True)
    args = [a.format(tmp=tmp_path) for a in args]
    result = subprocess.run([sys.executable, "-c", PROBE.format(heavy=("prefect", "pandas")), "--home", str(home), *args],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.stdout.splitlines()[-1] == f"MODULES {result.returncode} []", result.stdout + result.stderr
    assert result.returncode == 0, result.stderr


METHOD_PROBE = """
import sys
import numpy as np
from scorehouse.aggregators import REGISTRY, aggregate
import polars as pl
ballots = pl.DataFrame({{"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b", "a", "b"], "score": [1.0, 2.0, 3.0, 1.0]}})
aggregate({method!r}, ballots)
print("MODULES", sorted(m for m in {modules!r} if m in sys.modules))
"""
SOLVERS = ("scipy.optimize", "scipy.special", "scipy.sparse.csgraph", "highspy", "scorehouse.aggregators.kemeny_ilp")


@pytest.mark.parametrize(("method", "loaded"), [
    ("borda", []),  # the registry imports every method module, none of which loads scipy's solvers on import
    ("kemeny", ["scipy.sparse.csgraph"]),  # its majority blocks; the integer program only past the dynamic program's size
])
def test_a_method_loads_only_the_scipy_it_runs(method, loaded):
    result = subprocess.run([sys.executable, "-c", METHOD_PROBE.format(method=method, modules=SOLVERS)],
                            cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == f"MODULES {loaded}", result.stdout + result.stderr


def test_the_rank_flow_loads_the_instance_level_code_only_when_it_ranks_instances():
    result = subprocess.run(
        [sys.executable, "-c", "import sys, scorehouse.flows.rank; print(sorted(m for m in ('scorehouse.transforms.dense', 'pyarrow.compute') "
         "if m in sys.modules))"], cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
