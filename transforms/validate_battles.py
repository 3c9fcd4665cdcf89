"""Validation of parsed battles: landed battles and quarantine out, as :mod:`transforms.validate` does for scores.

Every parsed battle ends in exactly one of the two outputs (rows in == landed + quarantined). A
battle is quarantined, with its reason, when:

- its ``model_a`` or ``model_b`` name is empty or missing;
- a system battles itself (``model_a`` and ``model_b`` name the same system);
- its parser flagged it (a ``reason`` column: a one-hot winner without exactly one 1; a numeric judgement
  read with ``--winner-scale`` that is empty, not a number or outside the scale);
- its ``winner`` is not one of :data:`warehouse.schema.BATTLE_WINNERS` (the reason names the value
  and the allowed ones);
- its ``tstamp`` is neither unix seconds nor an ISO 8601 time, or lies outside :data:`EARLIEST` (1970-01-01)
  to :data:`LATEST` (2200-01-01) UTC: a later number is most likely milliseconds (1714564800000),
  which as seconds would be the year 56302; or its ``turn`` is not a whole number
  (``2`` and ``2.0`` are turn 2, ``1.5`` is quarantined).

Names, winners and the other text fields are compared without surrounding blanks.  Repeated
battles are data (two users may pit the same pair on the same prompt with the same verdict), so
none is a duplicate.  A time without an offset is taken as UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from scorehouse.warehouse.schema import (
    BATTLE_FIELDS, BATTLE_WINNERS, BATTLES, BATTLES_QUARANTINE, PARSER_REASON, conform, parsed_battles_schema,
)

# ISO 8601 layouts after normalising (a blank between date and time becomes "T", "Z" "+00:00").
WITH_OFFSET = "%Y-%m-%dT%H:%M:%S%.f%#z"
NAIVE_FORMATS = ("%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d")
ALLOWED_WINNERS = ", ".join(BATTLE_WINNERS)
# The plausible times of a battle, UTC (the earliest included, the latest not).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ValidatedBattles:
    """The outcome of :func:`validate_battles`."""

    battles: pl.DataFrame
    quarantine: pl.DataFrame


def parse_tstamp(text: pl.Expr) -> pl.Expr:
    """Text of unix seconds (``1714564800.25``) or an ISO 8601 time, as a UTC timestamp; null when neither."""
    seconds = text.cast(pl.Float64, strict=False)
    from_seconds = (
        pl.when(seconds.is_finite()).then((seconds * 1_000_000).round().cast(pl.Int64, strict=False))
        .cast(pl.Datetime("us")).dt.replace_time_zone("UTC")
    )
    iso = text.str.replace(r"^(\d{4}-\d\d-\d\d)[ T]", r"${1}T").str.replace(r"[zZ]$", "+00:00")
    naive = [iso.str.to_datetime(f, strict=False, time_unit="us").dt.replace_time_zone("UTC") for f in NAIVE_FORMATS]
    return pl.coalesce(from_seconds, iso.str.to_datetime(WITH_OFFSET, strict=False, time_unit="us", time_zone="UTC"), *naive)


def parse_turn(text: pl.Expr) -> pl.Expr:
    """Text of an integer (``2``) or of a number without a fractional part (``2.0``: Parquet and CSV
    exports of a float column), as an integer; null otherwise (``1.5``, ``two``)."""
    number = text.cast(pl.Float64, strict=False)
    whole = pl.when(number.is_finite() & (number == number.floor())).then(number.cast(pl.Int64, strict=False))
    # Integer text first: a float cannot hold every integer above 2**53 exactly.
    return pl.coalesce(text.cast(pl.Int64, strict=False), whole)


def validate_battles(rows: pl.DataFrame, *, file: str, load_id: str) -> ValidatedBattles:
    """Split parsed battles of ``file`` into landed battles (:data:`BATTLES`) and quarantined rows."""
    flagged = rows.get_column(PARSER_REASON) if PARSER_REASON in rows.columns else pl.lit(None, dtype=pl.String)
    if "outcome" not in rows.columns:  # only a numeric judgement has one (transforms.parsers.battles.WinnerScale)
        rows = rows.with_columns(outcome=pl.lit(None, dtype=pl.String))
    rows = conform(rows, parsed_battles_schema(rows)).with_columns(_flagged=flagged)
    stripped = rows.with_columns(pl.col(BATTLE_FIELDS).str.strip_chars())
    typed = stripped.with_columns(_tstamp=parse_tstamp(pl.col("tstamp")), _turn=parse_turn(pl.col("turn")))
    blank = lambda c: pl.col(c).is_null() | (pl.col(c) == "")  # noqa: E731
    quoted = lambda c: pl.format("'{}'", pl.col(c).str.slice(0, 80))  # noqa: E731
    reason = (
        pl.when(blank("model_a")).then(pl.lit("empty model_a name"))
        .when(blank("model_b")).then(pl.lit("empty model_b name"))
        .when(pl.col("model_a") == pl.col("model_b"))
        .then(pl.format("a system battling itself: model_a and model_b are both {}", quoted("model_a")))
        .when(pl.col("_flagged").is_not_null()).then(pl.col("_flagged"))
        .when(blank("winner")).then(pl.lit(f"unknown winner (empty); allowed: {ALLOWED_WINNERS}"))
        .when(~pl.col("winner").is_in(BATTLE_WINNERS) & pl.col("winner").cast(pl.Float64, strict=False).is_not_null())
        .then(pl.format(f"unknown winner {{}}; allowed: {ALLOWED_WINNERS}, or a number read with "
                        "--winner-scale A,B (A: model_a wins, B: model_b wins)", quoted("winner")))
        .when(~pl.col("winner").is_in(BATTLE_WINNERS))
        .then(pl.format(f"unknown winner {{}}; allowed: {ALLOWED_WINNERS}", quoted("winner")))
        .when(~blank("tstamp") & pl.col("_tstamp").is_null())
        .then(pl.format("unparseable tstamp {}; give unix seconds or an ISO 8601 time", quoted("tstamp")))
        .when((pl.col("_tstamp") >= LATEST) & pl.col("tstamp").cast(pl.Float64, strict=False).is_not_null())
        .then(pl.format(f"tstamp {{}} is after {LATEST:%Y-%m-%d}: give seconds since the epoch, not milliseconds",
                        quoted("tstamp")))
        .when((pl.col("_tstamp") >= LATEST) | (pl.col("_tstamp") < EARLIEST))
        .then(pl.format(f"tstamp {{}} is outside {EARLIEST:%Y-%m-%d} to {LATEST:%Y-%m-%d}; give the time of the battle",
                        quoted("tstamp")))
        .when(~blank("turn") & pl.col("_turn").is_null())
        .then(pl.format("non-integer turn {}", quoted("turn")))
        .otherwise(pl.lit(None, dtype=pl.String))
    )
    checked = typed.with_columns(reason=reason)
    landed = checked.filter(pl.col("reason").is_null()).with_columns(
        pl.col("_tstamp").alias("tstamp"), pl.col("_turn").alias("turn"), pl.col("outcome").cast(pl.Float64),
        load_id=pl.lit(load_id),
    )
    # Quarantined rows keep the fields as given (unstripped), so the reason can be checked against the file.
    quarantined = rows.with_columns(reason=checked.get_column("reason")).filter(pl.col("reason").is_not_null())
    return ValidatedBattles(
        conform(landed, BATTLES),
        conform(quarantined.with_columns(file=pl.lit(file), load_id=pl.lit(load_id)), BATTLES_QUARANTINE),
    )


# The classes of the reasons above, each the start of its reasons' text (:func:`transforms.validate.reason_counts`).
BATTLE_REASON_CLASSES = {
    "empty model_a name": r"^empty model_a name$",
    "empty model_b name": r"^empty model_b name$",
    "a system battling itself": r"^a system battling itself",
    "unknown winner": r"^unknown winner ",
    "one-hot winner not exactly one 1": r"^one-hot winner columns not exactly one 1",
    "unreadable numeric judgement": r"^(empty judgement|non-numeric judgement|judgement .* outside the scale) ",
    "unparseable tstamp": r"^unparseable tstamp ",
    "implausible tstamp": r"^tstamp .* is (after|outside) ",
    "non-integer turn": r"^non-integer turn ",
}
