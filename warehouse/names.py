"""What may name a benchmark (it becomes a hive partition folder, ``benchmark=<name>``), and where the home is.

Kept free of heavy imports so that the command line can check ``--benchmark``
before anything starts (``scorehouse --help`` must stay fast).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from scorehouse.aggregators.errors import ScorehouseError

HOME_ENV = "SCOREHOUSE_HOME"
DEFAULT_HOME = Path("scorehouse-data")


def resolve_home(home: str | Path | None) -> Path:
    """The warehouse home: the argument, else ``$SCOREHOUSE_HOME``, else ``./scorehouse-data``."""
    if home is not None:
        return Path(home)
    return Path(os.environ.get(HOME_ENV) or DEFAULT_HOME)

BENCHMARK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


class BenchmarkNameError(ScorehouseError, ValueError):
    """A benchmark name that cannot name a partition folder."""

    exit_code = 2


def check_benchmark_name(name: str) -> str:
    """``name`` when it can name a partition; :class:`BenchmarkNameError` saying what to do otherwise."""
    if not BENCHMARK_NAME.match(name):
        raise BenchmarkNameError(
            f"benchmark name {name!r} cannot name a partition; use letters, digits and . _ + - "
            f"(give --benchmark such a name)"
        )
    return name
