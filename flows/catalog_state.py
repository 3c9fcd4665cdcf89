"""The catalog as a function of the committed state: rebuilt whenever it does not match it.

A crash between a load's commit (its manifest) and the catalog rebuild, or a
run that stops in between, leaves a catalog that misses committed loads; a
ranking read from it would be wrong and stored for good.  So every command
that reads or ranks first compares the state recorded with the catalog
(:func:`warehouse.catalog.catalog_is_current`: a few directory listings) with
the committed one and rebuilds when they differ.  No Prefect here: ``sql`` and
the other read commands use it without paying Prefect's import.
"""

from __future__ import annotations

import sys

import polars as pl

from scorehouse.transforms.catalog import check_rules, resolve_metrics
from scorehouse.warehouse.catalog import build_private_catalog, catalog_is_current, current_metric_keys, rebuild_catalog
from scorehouse.warehouse.home_format import home_format, migrate
from scorehouse.warehouse.integrity import damaged_warning
from scorehouse.warehouse.storage import Warehouse, read_metric_rules


def checked_metric_rules(warehouse: Warehouse) -> pl.DataFrame:
    """The metric rules in precedence order (the user's file first), checked.

    Raises :class:`transforms.catalog.MetricRulesError` naming the file, line,
    column and allowed values: called before anything is written, so a bad
    rules file stops an ingest at once instead of after its loads committed.
    """
    return pl.concat([check_rules(frame, source) for source, frame in read_metric_rules(warehouse)])


def resolved_metrics(warehouse: Warehouse) -> pl.DataFrame:
    """The metric catalog of the current scores under the current rules."""
    return resolve_metrics(current_metric_keys(warehouse), checked_metric_rules(warehouse))


def rebuild(warehouse: Warehouse) -> None:
    """Migrate an older home (:mod:`warehouse.home_format`), re-resolve the metric catalog and rebuild the views
    (the caller holds the write lock)."""
    migrate(warehouse)
    warn_damaged(warehouse, rebuild_catalog(warehouse, resolved_metrics(warehouse)))


def warn_damaged(warehouse: Warehouse, damaged: pl.DataFrame) -> None:
    """Name each damaged file left out of the views on stderr (:mod:`warehouse.integrity`)."""
    for line in damaged_warning(damaged, warehouse.home):
        print(line, file=sys.stderr)


def has_committed(warehouse: Warehouse) -> bool:
    """True when the home holds a catalog or a committed load: something a catalog can be built for."""
    loads = warehouse.dir("loads")
    return warehouse.catalog_path.exists() or (loads.is_dir() and any(loads.glob("*.parquet")))


def ensure_current_catalog(warehouse: Warehouse) -> bool:
    """Rebuild the catalog when it does not match the committed state; True when it was rebuilt.

    Checked again under the lock, so two commands finding it stale rebuild it once.
    A home with nothing committed is left alone (reading it says so).
    """
    if not has_committed(warehouse) or catalog_is_current(warehouse):
        return False
    with warehouse.write_lock():
        if catalog_is_current(warehouse):
            return False
        rebuild(warehouse)
    return True


def ensure_readable_catalog(warehouse: Warehouse) -> None:
    """Make the catalog this process reads current, never waiting for a writer.

    A stale catalog is rebuilt in place when the writer lock is free at once; when a writer
    holds it, or the home is read-only (a copied backup, read-only media: the lock file cannot
    even be opened), or the rebuild in place fails on I/O (a full disk), a catalog is built
    aside in a private temporary folder and read instead (:func:`warehouse.catalog.build_private_catalog`).
    """
    if not has_committed(warehouse):
        return
    home_format(warehouse)  # a home of a newer format is refused before anything is read
    if catalog_is_current(warehouse):
        return
    try:
        with warehouse.write_lock(wait=False) as taken:
            if taken:
                if not catalog_is_current(warehouse):
                    rebuild(warehouse)
                return
    except OSError:  # read-only home, full disk: build aside
        pass
    warn_damaged(warehouse, build_private_catalog(warehouse, resolved_metrics(warehouse)))
