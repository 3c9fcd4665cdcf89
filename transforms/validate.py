"""Validation at the ingest boundary: parsed rows in, canonical scores and quarantine out.

Every parsed row ends in exactly one of the two outputs, so
``rows in == rows landed + rows quarantined`` always holds and nothing the
user gave is silently dropped.  A row is quarantined, with its reason, when:

- its system, task or metric name is empty;
- its value is text that is not a number, or a number that is not finite
  (``inf``, ``nan``, or too large for a float64);
- another row of the same file scores the same (system, voter) — voter being
  (task, metric, instance) — with a different value: every such row is
  quarantined, since there is no telling which one is right;
- it repeats an earlier row with the same value: the first copy lands and the
  later ones are quarantined as exact duplicates of it;
- its parser flagged it with a ``reason`` (an optional column of the parsed
  rows): a cell the parser could read but cannot tell the meaning of, such as
  one value in a paired leaderboard cell.

A null value is a cell the dump marks as missing; it lands with a null score
(missing scores are data: methods that handle them need to see them).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from scorehouse.transforms.validate_battles import BATTLE_REASON_CLASSES
from scorehouse.warehouse.schema import PARSER_REASON, QUARANTINE, SCORES, conform, parsed_schema

VOTER_KEY = ("benchmark", "task", "metric", "instance", "system")
# Reasons about the value itself, followed by the value as the file spelled it (:func:`with_values_said`).
NON_NUMERIC, NON_FINITE = "non-numeric score", "non-finite score"


@dataclass(frozen=True)
class Validated:
    """The outcome of :func:`validate_rows`."""

    scores: pl.DataFrame
    quarantine: pl.DataFrame


def validate_rows(rows: pl.DataFrame, *, file: str, load_id: str) -> Validated:
    """Split parsed ``rows`` of ``file`` into landed scores and quarantined rows (:func:`validate_loads`)."""
    return validate_loads(rows.with_columns(file=pl.lit(file), load_id=pl.lit(load_id)))


def validate_loads(rows: pl.DataFrame) -> Validated:
    """Split parsed rows, each with its ``file`` and ``load_id``, into landed scores and quarantined rows.

    Every rule is decided within a load (the rows of one file), so the parsed rows
    of many small files are validated at once, for the cost of one.  ``value`` is
    text, or Float64 from a typed format (then nothing can be non-numeric).
    Loads without any repeated key skip the per-key grouping.
    """
    flagged = rows.get_column(PARSER_REASON) if PARSER_REASON in rows.columns else pl.lit(None, dtype=pl.String)
    # Names are compared without surrounding blanks: " BERT" and "BERT" are one system.
    schema = {**parsed_schema(rows), "file": pl.String(), "load_id": pl.String()}
    rows = conform(rows, schema).with_row_index("_row").with_columns(
        pl.col("system", "task", "metric").str.strip_chars(), _flagged=flagged
    )
    typed = rows.schema["value"].is_float()
    number = pl.col("value") if typed else pl.col("value").str.strip_chars().cast(pl.Float64, strict=False)
    parsed = rows.with_columns(_number=number)
    blank = lambda c: pl.col(c).is_null() | (pl.col(c) == "")  # noqa: E731
    reason = (
        pl.when(blank("system")).then(pl.lit("empty system name"))
        .when(blank("task")).then(pl.lit("empty task name"))
        .when(blank("metric")).then(pl.lit("empty metric name"))
        .when(pl.col("_flagged").is_not_null()).then(pl.col("_flagged"))
        .when(pl.col("value").is_not_null() & pl.col("_number").is_null()).then(pl.lit(NON_NUMERIC))
        .when(pl.col("_number").is_not_null() & ~pl.col("_number").is_finite()).then(pl.lit(NON_FINITE))
        .otherwise(pl.lit(None, dtype=pl.String))
    )
    checked = with_values_said(parsed.with_columns(reason=reason))

    usable = checked.filter(pl.col("reason").is_null())
    # A hash of each usable row's key: two rows of one load may share a (system, voter) key only where hashes
    # repeat (linear and cheap); equal hashes of different keys (a collision) are told apart by the exact grouping.
    hashes = usable.select(*VOTER_KEY, "load_id").hash_rows()
    decided = _decide_duplicates(checked, usable, hashes) if hashes.n_unique() < usable.height else checked
    landed = decided.filter(pl.col("reason").is_null()).with_columns(score=pl.col("_number"))
    quarantined = decided.filter(pl.col("reason").is_not_null()).with_columns(pl.col("value").cast(pl.String))
    return Validated(conform(landed, SCORES), conform(quarantined, QUARANTINE))


def with_values_said(checked: pl.DataFrame) -> pl.DataFrame:
    """``checked`` with the value (its first 80 characters) after each reason about the value itself, on those rows
    alone: written for every row and kept for a few, the text of a million floats cost two thirds of the reasons."""
    # rechunked (a few rows): Polars 2.1 panics formatting columns whose chunks differ, as a batch's do
    said = checked.filter(pl.col("reason").is_in([NON_NUMERIC, NON_FINITE])).rechunk().select(
        "_row", reason=pl.format("{} {}", "reason", pl.col("value").cast(pl.String).str.slice(0, 80)))
    if said.height == 0:
        return checked
    return checked.with_columns(checked.get_column("reason").scatter(said.get_column("_row"), said.get_column("reason")))


def _decide_duplicates(checked: pl.DataFrame, usable: pl.DataFrame, hashes: pl.Series) -> pl.DataFrame:
    """``checked`` with a reason on every conflicting or repeated row of ``usable`` (keys within a load, ``hashes``
    those of its keys), in row order.

    A row is named by its place in its own file: ``_row`` counts across loads, less the load's first row.
    """
    key = [*VOTER_KEY, "load_id"]
    # Only rows whose key's hash repeats can be duplicates or conflicts: the exact grouping runs on them alone
    # (a few rows of a batch of millions), and their reasons are put in place by row (``_row`` is the row's place
    # in ``checked``), where a concatenation and sort of the whole batch cost half of its validation.
    usable = usable.filter(hashes.is_duplicated())
    per_key = usable.group_by(key).agg(
        pl.col("_number").n_unique().alias("_distinct"),
        pl.col("_number").sort().unique(maintain_order=True).alias("_values"),
        pl.col("_row").min().alias("_first_row"),
        pl.col("line").sort_by("_row").first().alias("_first_line"),
    )
    starts = checked.filter(pl.col("load_id").is_in(usable.get_column("load_id").unique().implode())).group_by(
        "load_id").agg(pl.col("_row").min().alias("_load_start"))
    usable = usable.join(per_key, on=key, how="left", nulls_equal=True).join(starts, on="load_id")
    conflict = pl.col("_distinct") > 1
    duplicate = ~conflict & (pl.col("_row") != pl.col("_first_row"))
    usable = usable.with_columns(
        reason=pl.when(conflict)
        .then(
            pl.format(
                "conflicting values {} for the same system and voter",
                pl.col("_values").cast(pl.List(pl.String)).list.join(" / "),
            )
        )
        .when(duplicate & pl.col("_first_line").is_null())  # typed formats (Parquet) have rows, not lines
        .then(pl.format("exact duplicate of row {}", (pl.col("_first_row") - pl.col("_load_start") + 1).cast(pl.String)))
        .when(duplicate)
        .then(pl.format("exact duplicate of line {}", pl.col("_first_line").cast(pl.String)))
        .otherwise(pl.lit(None, dtype=pl.String))
    )
    found = usable.filter(pl.col("reason").is_not_null())
    return checked.with_columns(checked.get_column("reason").scatter(found.get_column("_row"), found.get_column("reason")))


# The classes of the reasons above, each the start of its reasons' text: a reason quotes the
# value or line it is about ("non-finite score NaN"), so counts are kept per class.  The
# last is the reason the leaderboard-table parser flags a lone value of a paired cell with;
# then the classes of quarantined battles.
REASON_CLASSES = {
    "empty system name": r"^empty system name",
    "empty task name": r"^empty task name",
    "empty metric name": r"^empty metric name",
    "non-numeric score": r"^non-numeric score ",
    "non-finite score": r"^non-finite score ",
    "conflicting values for the same system and voter": r"^conflicting values .* for the same system and voter$",
    "exact duplicate": r"^exact duplicate of (line|row) ",
    "paired cell that is not two values": r"^cell .* of paired column .* is not two values",
    **BATTLE_REASON_CLASSES,
}


def reason_counts(quarantine: pl.DataFrame) -> dict[str, int]:
    """Quarantined rows per reason class (:data:`REASON_CLASSES`), most first; a reason of no class is its own."""
    return reason_counts_per(quarantine.get_column("reason"), pl.Series([0] * quarantine.height, dtype=pl.UInt32)).get(0, {})


def reason_counts_per(reasons: pl.Series, groups: pl.Series) -> dict[int, dict[str, int]]:
    """:func:`reason_counts` of the rows of each group (``groups[i]`` is the group of ``reasons[i]``): one query
    for a batch's quarantined rows, not one per load."""
    reason = pl.col("reason")
    classed = pl.lit(None, dtype=pl.String)
    for label, pattern in reversed(REASON_CLASSES.items()):
        classed = pl.when(reason.str.contains(pattern)).then(pl.lit(label)).otherwise(classed)
    counts = (
        pl.DataFrame({"group": groups, "reason": reasons})
        .group_by("group", reason_class=pl.coalesce(classed, reason)).len()
        .sort(["group", "len", "reason_class"], descending=[False, True, False])
    )
    out: dict[int, dict[str, int]] = {}
    for group, reason_class, n in counts.iter_rows():
        out.setdefault(group, {})[reason_class] = n
    return out
