"""The sources of loads made before a source was a file's place (home format 4, :mod:`warehouse.home_format`).

Until format 4 a load's source was ``<format>:<benchmarks>:<file name>`` for every format that does not take
names from its folders, so fifty model folders that each hold an ``annotations.json`` made fifty loads of one
source, each superseding the one before: only the last was current.  A source is now the file's path below the
folder it was found in (:func:`flows.ingest_plan.places`).  Manifests are immutable, so the migration writes
``<home>/source_renames.parquet`` (load id -> source) and the loads view reads a load's source from it when it
is there (:func:`warehouse.sql.loads_relation`).

Which old loads were distinct files is read from the manifests and the file index: two loads of one source with
different file names that one run read (one batch commits files of one run, and the file index stamps every file a
run indexed with the run's start) were two files that clashed by name: a run never meant to supersede its own
load.  Every load of such a file name (its earlier and later loads too) takes the
source ``<format>:<benchmarks>:<its path below the common folder of the clashing files>``: the place a new
ingest of that folder gives it, so a corrected file supersedes its own load.  Loads of the same source in
different batches with different names are left as they were: a file given by name is still a source by its
name, and a later run's file of that name is meant as its correction.  Assumed, and said in docs/formats.md:
the clashing files were found under their common folder.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePath

import polars as pl

from scorehouse.warehouse import atomic
from scorehouse.warehouse.file_index import read_index
from scorehouse.warehouse.sql import RENAMES_FILE, loads_relation, query_files
from scorehouse.warehouse.storage import Warehouse

RENAMES: dict[str, pl.DataType] = {"load_id": pl.String(), "source": pl.String()}


def renamed_sources(manifests: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """The new source of every load (of ``manifests``: load_id, source, file_name, sha256, batch_id) whose file
    clashed by name with another file of its run (module docstring); ``runs``: the run that indexed each hash
    (sha256, run), from the file index.  :data:`RENAMES`."""
    named = manifests.filter(~pl.col("source").str.split(":").list.get(-1, null_on_oob=True).str.contains("/"))
    ran = named.join(runs.unique("sha256"), on="sha256", how="left").with_columns(
        run=pl.coalesce(pl.col("run"), pl.col("batch_id")))
    clashing = (
        ran.group_by("source", "run").agg(pl.col("file_name").unique())
        .filter(pl.col("file_name").list.len() > 1)
        .explode("file_name").select("source", "file_name").unique()
    )
    if clashing.height == 0:
        return pl.DataFrame(schema=RENAMES)
    places: dict[tuple[str, str], str] = {}
    for (source,), group in clashing.group_by("source"):  # the clashing sources: a few, not one per load
        names = sorted(group.get_column("file_name").to_list())
        prefix = source[:source.rindex(":") + 1]
        for name, place in zip(names, places_below_common_folder(names), strict=True):
            places[(source, name)] = prefix + place
    keys = pl.DataFrame([(s, f, p) for (s, f), p in places.items()], schema=["source", "file_name", "renamed"],
                        orient="row")
    return (manifests.join(keys, on=["source", "file_name"]).select("load_id", source="renamed")
            .sort("load_id"))


def places_below_common_folder(names: list[str]) -> list[str]:
    """Each of ``names`` (file paths) relative to the folder they all lie under; their whole paths when they share
    none (one relative, one absolute)."""
    posix = [PurePath(n).as_posix() for n in names]
    try:
        common = posixpath.commonpath([posixpath.dirname(n) or "." for n in posix])
    except ValueError:
        return posix
    return [posixpath.relpath(n, common or ".") for n in posix]


def record_renames(warehouse: Warehouse) -> None:
    """Write the renames of ``warehouse`` unless they are there (an interrupted migration wrote them before its
    ``format.json``); computed from the manifests as written, never from earlier renames."""
    home = warehouse.home
    target = home / RENAMES_FILE
    if target.exists() or not (home / "loads").is_dir():
        return
    manifests = query_files(
        f"SELECT load_id, source, file_name, sha256, batch_id FROM ({loads_relation(home, renamed=False)})")
    runs = read_index(home).select("sha256", run=pl.col("indexed_ns").cast(pl.String))
    renames = renamed_sources(manifests, runs)
    if renames.height:
        atomic.write_parquet(renames, target)
