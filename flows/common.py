"""The catalog refresh several flows end with (the rules and the freshness check: :mod:`scorehouse.flows.catalog_state`)."""

from __future__ import annotations

from scorehouse import runtime
from scorehouse.flows.catalog_state import rebuild
from scorehouse.warehouse.storage import Warehouse


@runtime.step(io=True)
def refresh_catalog(warehouse: Warehouse) -> None:
    """Re-resolve the metric catalog and rebuild the catalog's views (aside, then swapped in)."""
    with warehouse.write_lock():
        rebuild(warehouse)
