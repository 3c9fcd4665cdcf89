"""``sql`` is bounded: a time limit with a default, memory limited, spilling outside the home (issue 25, case 5).

Before, a query ran for as long as it liked and DuckDB spilled beside the catalog, into the home.
"""

import os
import time
from pathlib import Path

from scorehouse import cli
from scorehouse.cli import main
from scorehouse.warehouse import catalog


def test_a_query_over_its_timeout_is_stopped_with_a_named_error(old_home: Path, capsys) -> None:
    endless = "SELECT count(*) FROM range(1000000) AS a, range(1000000) AS b WHERE a.range + b.range = -1"
    started = time.monotonic()
    assert main(["--home", str(old_home), "sql", endless, "--timeout", "1"]) == 1
    assert time.monotonic() - started < 20
    assert "ran longer than 1 s" in capsys.readouterr().err


def test_the_timeout_has_a_default_and_must_be_positive(old_home: Path, capsys) -> None:
    assert cli.build_parser().parse_args(["sql", "SELECT 1"]).timeout == catalog.DEFAULT_QUERY_TIMEOUT == 60
    for bad in ("0", "-3"):
        try:
            main(["--home", str(old_home), "sql", "SELECT 1", "--timeout", bad])
        except SystemExit as exit_:
            assert exit_.code == 2
        assert "--timeout must be a positive number" in capsys.readouterr().err


def test_duckdb_spills_outside_the_home_and_within_a_memory_limit(old_home: Path, capsys) -> None:
    query = "SELECT current_setting('temp_directory') AS spill, current_setting('memory_limit') AS memory"
    assert main(["--home", str(old_home), "sql", query, "--format", "csv"]) == 0
    spill, memory = capsys.readouterr().out.splitlines()[1].split(",")
    assert spill and not Path(spill).resolve().is_relative_to(old_home.resolve())
    assert not Path(spill).exists()  # removed after the query
    number, unit = memory.split()
    half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2
    assert abs(float(number) * {"MiB": 1 << 20, "GiB": 1 << 30}[unit] / half - 1) < 0.01  # DuckDB rounds to 0.1
    assert not list(old_home.glob("*.tmp"))
