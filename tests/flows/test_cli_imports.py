"""Commands import only what they use (issue 14): reading commands load neither Prefect nor scipy nor the methods.

Each command runs through ``main`` in a fresh interpreter (a test process has
imported everything already), on a ranked warehouse, and reports the modules
it loaded.
"""

import subprocess
import sys

import pytest

from tests.flows.conftest import REPO

HEAVY = ("prefect", "scipy", "aggregators.registry", "flows.local_server")
PROBE = """
import sys
from flows.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
print("MODULES", code, heavy)
"""


@pytest.mark.parametrize("args", [
    ["sql", "SELECT count(*) FROM rankings"],
    ["snapshots"],
    ["export", "--latest", "--format", "csv", "--output", "{tmp}/latest.csv"],
])
def test_reading_commands_import_neither_prefect_nor_scipy(ranked_warehouse, tmp_path, args):
    args = [a.format(tmp=tmp_path) for a in args]
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), "--home", str(ranked_warehouse.warehouse.home), *args],
        cwd=REPO, capture_output=True, text=True, check=True,
    )
    assert result.stdout.splitlines()[-1] == "MODULES 0 []", result.stdout + result.stderr
