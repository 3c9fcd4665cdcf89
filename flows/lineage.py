"""Which parser made each load, and what a newer parser has to re-derive.

A load id hashes the file's bytes, its format, the ``--benchmark`` it was
ingested with, the folder of formats that take names from it, and the
format's parser version (:attr:`transforms.parsers.base.Format.parser_version`).
Bumping a format's version therefore gives its files new load ids, but a
plain ingest never re-reads bytes already loaded: it only says how many
current loads an older parser made.  ``--reparse`` re-derives those from the
raw archive; the new load supersedes the old one like a corrected dump, and
the old one stays in ``scores_history``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.transforms.parsers import FORMATS, Format
from scorehouse.warehouse.schema import UNVERSIONED_PARSER
from scorehouse.warehouse.storage import Warehouse


class ReparseError(ScorehouseError, ValueError):
    """A load that cannot be re-derived from its manifest and the raw archive."""


def load_id_of(
    sha: str, format_name: str, benchmark: str | None, folder: str | None = None,
    parser_version: int = UNVERSIONED_PARSER, columns: dict[str, str] | None = None,
) -> str:
    """The load of these bytes read by this format's parser version with this ``--benchmark``
    and column mapping (``columns``, role -> column: battles and user tables read by their columns).

    Version 1 and no mapping add nothing to the hashed key, so the loads made before parsers had
    versions keep their ids (a warehouse of that time re-ingests nothing).
    """
    key = f"{sha}|{format_name}|{benchmark or ''}" + (f"|{folder}" if folder is not None else "")
    if parser_version != UNVERSIONED_PARSER:
        key += f"|parser={parser_version}"
    if columns:
        key += f"|columns={json.dumps(columns, sort_keys=True)}"
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def folder_of(path: Path, fmt: Format) -> str | None:
    """The folder name that is part of a load's identity, for formats that take names from it."""
    return fmt.folder(path)


def revert_id(load_id: str, superseding: str) -> str:
    """The id of the load that makes ``load_id`` current again after ``superseding`` replaced it.

    Derived from both, so reverting the same correction twice is the same load (nothing new is
    written), while reverting a later correction is a new one.
    """
    return hashlib.sha256(f"{load_id}|revert-of|{superseding}".encode()).hexdigest()[:20]


def stale_loads(warehouse: Warehouse) -> pl.DataFrame:
    """The current loads (manifest rows) made by an older parser version than their format's.

    Only current loads: re-deriving a superseded one would make it current again.
    """
    versions = pl.DataFrame(
        {"format": list(FORMATS), "current_version": [f.parser_version for f in FORMATS.values()]},
        schema={"format": pl.String(), "current_version": pl.Int64()},
    )
    return (
        warehouse.manifests()
        .filter("is_current")
        .join(versions, on="format")
        .filter(pl.col("parser_version") < pl.col("current_version"))
        .sort("loaded_at", "load_id")
    )


def mapping_of(load: dict) -> dict[str, str] | None:
    """The column mapping ``load`` (a manifest row) was read with, if any."""
    return json.loads(load["columns"]) if load.get("columns") else None


def benchmark_option(load: dict) -> str | None:
    """The ``--benchmark`` that ``load`` (a manifest row) was ingested with.

    The manifest does not record it, but the load id hashes it, and an option names
    the benchmark the rows got: it is whichever of none and the load's benchmarks
    gives back the load's id.
    """
    fmt = FORMATS[load["format"]]
    folder = folder_of(Path(load["file_name"]), fmt)
    for option in (None, *load["benchmark"].split(",")):
        key = load_id_of(load["sha256"], fmt.name, option, folder, load["parser_version"], mapping_of(load))
        if key == load["load_id"]:
            return option
    raise ReparseError(
        f"load {load['load_id']} of {load['file_name']}: cannot tell which --benchmark it was ingested with; "
        f"ingest the file again with --benchmark to replace it"
    )


def lineage_notices(reparsed: int, stale: int) -> list[str]:
    """What to tell the user about loads made by older parsers."""
    notices = []
    if reparsed:
        notices.append(f"re-parsed {reparsed} load(s) from the raw archive with their format's current parser")
    if stale:
        notices.append(f"{stale} load(s) were parsed by an older parser; run with --reparse")
    return notices
