"""The one source of column names and dtypes of every table scorehouse keeps.

Pure: imports polars (and the aggregators' column names) only, so ``transforms`` may use it without touching disk
or DuckDB.  Everything else refers to these dictionaries instead of spelling
column names again.
"""

from __future__ import annotations

import polars as pl

from scorehouse.aggregators.schemas import WINNER_VALUES

# What a parser emits: one row per published cell, value still as text so that
# validation (not the parser) decides what is a usable number (or Float64 from
# a typed format, see parsed_schema).  ``value`` is
# null for a cell the dump marks as missing ("-", empty); ``line`` is the
# 1-based line of the source file the cell came from (null where the format
# has no lines, e.g. pickles).
PARSED_ROWS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "instance": pl.String(),
    "system": pl.String(),
    "value": pl.String(),
    "line": pl.Int64(),
}


# The optional column of parsed rows in which a parser says why a row cannot be used
# (validation quarantines the row with that reason).
PARSER_REASON = "reason"


def parsed_schema(rows: pl.DataFrame) -> dict[str, pl.DataType]:
    """:data:`PARSED_ROWS` for ``rows``: ``value`` stays Float64 when a typed format gave numbers.

    Formats with typed columns (Parquet) have no text to validate; turning
    their numbers into text and back would only cost time (and digits).
    """
    schema = dict(PARSED_ROWS)
    if "value" in rows.columns and rows.schema["value"].is_float():
        schema["value"] = pl.Float64()
    if PARSER_REASON in rows.columns:
        schema[PARSER_REASON] = pl.String()
    return schema


# What a file says about the systems it scores (MTEB's model_meta.json), one row per (benchmark, system):
# stored per load beside its scores, the catalog's ``systems`` view.  Fields a file lacks are null.
SYSTEMS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "system": pl.String(),
    "revision": pl.String(),  # the revision the metadata describes
    "release_date": pl.String(),  # as published, e.g. 2024-06-28
    "n_parameters": pl.Int64(),
    "memory_usage_mb": pl.Float64(),
    "max_tokens": pl.Float64(),
    "embed_dim": pl.Int64(),
    "languages": pl.List(pl.String()),
    "license": pl.String(),
    "open_weights": pl.Boolean(),
    "framework": pl.List(pl.String()),
    "reference": pl.String(),
    "adapted_from": pl.String(),
}


# Where a WMT segment-level file puts each document of a test set (its task) in the test set's
# segment positions: segments first..last, by the file's own numbering (global positions, or
# per document from the documents' order).  Layouts of files that agree are kept, so a later file
# of the same test set is checked against them (transforms.segment_layouts).
SEGMENT_LAYOUTS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "document": pl.String(),
    "first": pl.Int64(),
    "last": pl.Int64(),
    "numbering": pl.String(),  # "global" or "per-document"
}


# The canonical long table.  ``instance`` is null for task-level rows;
# ``score`` is the raw published value (direction lives in METRICS), null for a
# cell the dump marks as missing.
SCORES: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "instance": pl.String(),
    "system": pl.String(),
    "score": pl.Float64(),
    "load_id": pl.String(),
}

# The two levels a score lives at: a leaderboard cell (``instance`` null) or one instance.
LEVELS: tuple[str, ...] = ("task", "instance")
# A snapshot ranks scores at one of LEVELS, or a benchmark's pairwise battles (level "battles"):
# the levels ``scorehouse rank --level`` takes and a snapshot manifest records.
BATTLE_LEVEL = "battles"
SNAPSHOT_LEVELS: tuple[str, ...] = (*LEVELS, BATTLE_LEVEL)

# A voter's name and its group, per level: the columns joined with VOTER_SEPARATOR.
# At task level the group is the metric catalog's ``group`` (by default the task,
# so the halves of a paired leaderboard cell form one group); at instance level
# it is the (task, metric) the instance belongs to, what two-level methods
# aggregate within first.  The Polars ballots (transforms.ballots) and the SQL
# ``oriented_scores`` view (warehouse.catalog) are both built from these.
VOTER_SEPARATOR = " | "
VOTER_KEYS: dict[str, tuple[str, ...]] = {"task": ("task", "metric"), "instance": ("task", "metric", "instance")}
GROUP_KEYS: dict[str, tuple[str, ...]] = {"task": ("group",), "instance": ("task", "metric")}

# Pairwise battles (format ``battles``): two systems answered the same prompt and a judge picked
# one or called a tie.  A table of their own, beside the scores, with the lineage scores carry
# (``load_id``; the file and its bytes are in the load's manifest) plus ``source_row``, the battle's
# 1-based record number in its file, which keeps the order of battles of equal ``tstamp``.
# The winner values are the ones the aggregators rank by: one list, defined there.
BATTLE_WINNERS: tuple[str, ...] = WINNER_VALUES
BATTLES: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "model_a": pl.String(),
    "model_b": pl.String(),
    "winner": pl.String(),  # one of BATTLE_WINNERS
    # model_a's share of the win in [0, 1] when the judgement is a number (``--winner-scale``): the number
    # rescaled, 1 at the scale's model_a end; null for a winner given by name. Added later: files written
    # before it read it as null (the catalog reads battles by column name).
    "outcome": pl.Float64(),
    "judge": pl.String(),
    "instance": pl.String(),  # the prompt (``question_id`` in the arena dumps)
    "turn": pl.Int64(),
    "language": pl.String(),
    "category": pl.String(),
    "tstamp": pl.Datetime("us", "UTC"),
    "load_id": pl.String(),
    "source_row": pl.Int64(),
}
# The columns of a battle a file may give, each read as text (validation parses turn and tstamp).
BATTLE_FIELDS: tuple[str, ...] = tuple(c for c in BATTLES if c not in ("benchmark", "load_id", "source_row", "outcome"))
# What the battles parser emits: every field as text, with the source ``line`` (null where the
# format has no lines: Parquet) and ``source_row``; it may add PARSER_REASON.
PARSED_BATTLES: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    **{c: pl.String() for c in BATTLE_FIELDS},
    "outcome": pl.String(),  # the parser's reading of a numeric judgement (transforms.parsers.battles)
    "line": pl.Int64(),
    "source_row": pl.Int64(),
}


def quarantine_of(parsed: dict[str, pl.DataType]) -> dict[str, pl.DataType]:
    """The quarantine of a parsed table: its columns as given, then where each row came from and why."""
    return {**parsed, "file": pl.String(), "reason": pl.String(), "load_id": pl.String()}


# Battles that could not be used.
BATTLES_QUARANTINE: dict[str, pl.DataType] = quarantine_of(PARSED_BATTLES)


def parsed_battles_schema(rows: pl.DataFrame) -> dict[str, pl.DataType]:
    """:data:`PARSED_BATTLES` for ``rows``, with :data:`PARSER_REASON` when the parser flagged rows."""
    return {**PARSED_BATTLES, PARSER_REASON: pl.String()} if PARSER_REASON in rows.columns else dict(PARSED_BATTLES)


# The metric catalog: how to read each (benchmark, task, metric), every field
# filled (transforms.catalog.resolve_metrics is the one place that fills them).
METRICS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "higher_is_better": pl.Boolean(),
    "is_ranked": pl.Boolean(),
    "weight": pl.Float64(),
    "group": pl.String(),
    "group_weight": pl.Float64(),  # the group's weight in two-step runs (default 1: every group the same)
}

# Rules that resolve into METRICS rows: the same columns, where benchmark, task
# and metric are glob patterns; the first matching rule wins.
METRIC_RULES: dict[str, pl.DataType] = {**METRICS, "note": pl.String()}

# Rows of scores that could not be used.
QUARANTINE: dict[str, pl.DataType] = quarantine_of(PARSED_ROWS)

# What one load scored, per (benchmark, level, task, metric, system): written
# with the load, so the catalog and the rank flow learn the shape of the
# warehouse (its partitions, systems, metrics, missing cells) without a scan
# of every score.
COVERAGE: dict[str, pl.DataType] = {
    "load_id": pl.String(),
    "benchmark": pl.String(),
    "level": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "system": pl.String(),
    "rows": pl.Int64(),
    "nulls": pl.Int64(),
}

# One row per ingested file.  ``parser_version`` is the format's parser version that made the load.
LOADS: dict[str, pl.DataType] = {
    "load_id": pl.String(),
    "source": pl.String(),
    "file_name": pl.String(),
    "sha256": pl.String(),
    "format": pl.String(),
    "parser_version": pl.Int64(),
    "benchmark": pl.String(),
    "rows_in": pl.Int64(),
    "rows_landed": pl.Int64(),
    "rows_quarantined": pl.Int64(),
    "loaded_at": pl.Datetime("us", "UTC"),
    # The earlier load of the same bytes this one makes current again (a revert), else null.
    "reverts": pl.String(),
    # The batch committed with it: the name of the files that hold its rows (warehouse.storage).
    "batch_id": pl.String(),
    # The column mapping it was read with (role -> the file's column, as JSON), else null: part of
    # the load's identity, and what a re-parse reads the file with again.
    "columns": pl.String(),
}
# Manifests written before parsers had versions have no ``parser_version``: they read as 1, the
# version every format started at (a version-1 load id is the id those loads already have).
UNVERSIONED_PARSER = 1


# Files that could not be parsed at all (their bytes are in the raw archive).
REJECTED: dict[str, pl.DataType] = {
    "file": pl.String(),
    "sha256": pl.String(),
    "line": pl.Int64(),
    "reason": pl.String(),
    "rejected_at": pl.Datetime("us", "UTC"),
}

# One row per ranking snapshot (warehouse.snapshots): what it was computed from and how.
SNAPSHOT_MANIFEST: dict[str, pl.DataType] = {
    "snapshot_id": pl.String(),
    "created_at": pl.Datetime("us", "UTC"),
    "benchmark": pl.String(),
    "level": pl.String(),
    "method": pl.String(),
    "parameters": pl.String(),  # canonical JSON
    "input_fingerprint": pl.String(),
    "load_ids": pl.List(pl.String()),
    "code_version": pl.String(),
    "n_voters": pl.Int64(),
    "n_systems": pl.Int64(),
    "n_rows": pl.Int64(),
    "notes": pl.List(pl.String()),
    "previous_snapshot_id": pl.String(),
}

# What supports a snapshot's ranking (warehouse.snapshots, coverage.parquet beside ranking.parquet):
# a row with system = other counts the voters that scored the system; a row with system < other
# the voters that scored both (pairs no voter scored both of have no row).
SNAPSHOT_COVERAGE: dict[str, pl.DataType] = {
    "system": pl.String(),
    "other": pl.String(),
    "n_voters": pl.Int64(),
}

# A method run's own bootstrap intervals, voters or battles resampled (intervals.parquet beside ranking.parquet;
# rank computes them, transforms.snapshot_intervals): the columns of aggregators.bootstrap beyond the ranking, and the
# settings that reproduce them (the same on every row).  A snapshot written before them, or whose run is over the
# budget, has none.
SNAPSHOT_INTERVALS: dict[str, pl.DataType] = {
    "system": pl.String(),
    "score_low": pl.Float64(),
    "score_high": pl.Float64(),
    "rank_best": pl.Int64(),
    "rank_worst": pl.Int64(),
    "tie_group": pl.Int64(),
    "n_resamples": pl.Int64(),
    "seed": pl.Int64(),
    "confidence": pl.Float64(),
}

# The method name of the arena snapshots (``scorehouse arena``), and the arena leaderboard such a snapshot stores beside its ranking (arena.parquet):
# the columns of aggregators.arena_leaderboard.
ARENA_METHOD = "arena"
ARENA_LEADERBOARD: dict[str, pl.DataType] = {
    "system": pl.String(),
    "rating": pl.Float64(),
    "lower": pl.Float64(),
    "upper": pl.Float64(),
    "rank": pl.Int64(),
    "rank_ub": pl.Int64(),
    "n_battles": pl.Int64(),
    "win_rate": pl.Float64(),
}

# One row per stored analysis (warehouse.analyses), versioned like a snapshot.
ANALYSIS_MANIFEST: dict[str, pl.DataType] = {
    "analysis_id": pl.String(),
    "created_at": pl.Datetime("us", "UTC"),
    "benchmark": pl.String(),
    "level": pl.String(),
    "experiment": pl.String(),
    "parameters": pl.String(),  # canonical JSON: methods, repetitions, seed, ...
    "input_fingerprint": pl.String(),
    "load_ids": pl.List(pl.String()),
    "code_version": pl.String(),
    "tables": pl.List(pl.String()),
    "notes": pl.List(pl.String()),
}


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with exactly ``schema``'s columns, in order, cast to its dtypes.

    Raises ``KeyError`` naming the absent columns: a programming error, not
    bad input, since every producer builds its frames from these schemas.
    """
    if list(frame.schema.items()) == list(schema.items()):
        return frame  # already so (most calls): a select would cost a query plan per frame, per file of a batch
    absent = [c for c in schema if c not in frame.columns]
    if absent:
        raise KeyError(f"frame lacks the column(s) {absent} of its schema")
    return frame.select(pl.col(c).cast(t) for c, t in schema.items())


def concat_conformed(frames: list[pl.DataFrame], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frames`` one after another in one chunk, with exactly ``schema``'s columns (:func:`conform`).

    Checked once on the whole when the frames share their columns (Polars compares them natively), else each frame
    conformed first: a check per frame cost 10 us each, 2 s for the 209,000 of an MTEB ingest's batches.
    """
    try:
        whole = pl.concat(frames, rechunk=True)
    except (pl.exceptions.SchemaError, pl.exceptions.ShapeError):  # other dtypes; other names or order
        whole = pl.concat([conform(frame, schema) for frame in frames], rechunk=True)
    return conform(whole, schema)
