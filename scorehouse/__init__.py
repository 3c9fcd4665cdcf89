"""scorehouse: a warehouse of benchmark scores and the rankings computed from them.

The repository's stage folders are this package's subpackages: ``scorehouse.warehouse``
(storage and the DuckDB catalog), ``scorehouse.transforms`` (parsers, ballots),
``scorehouse.aggregators`` (the methods), ``scorehouse.reports`` and ``scorehouse.flows``.
Importing ``scorehouse`` loads none of them: each is imported when first used.
"""

from importlib import import_module
from typing import Any

# The Python API (scorehouse.api), loaded on first use (PEP 562) so that ``import scorehouse`` stays cheap.
API = ("ArgumentError", "ScorehouseError", "Warehouse", "rank", "rank_battles")

__all__ = list(API)


def __getattr__(name: str) -> Any:
    if name not in API:
        raise AttributeError(f"module 'scorehouse' has no attribute {name!r}")
    value = getattr(import_module("scorehouse.api"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(API))
