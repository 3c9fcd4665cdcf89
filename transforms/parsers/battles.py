"""Pairwise battles: one row per battle, in JSON, JSON Lines, CSV or Parquet.

Two systems answered the same prompt and a judge (a person or a model) picked one or called a
tie.  Read by default with the column names of the public arena dumps:

- LMSYS Chatbot Arena's ``clean_battle_*.json`` (a JSON array; Chiang et al., "Chatbot Arena: An
  Open Platform for Evaluating LLMs by Human Preference", ICML 2024): ``model_a``, ``model_b``,
  ``winner`` (``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``), ``judge``, ``question_id``
  (the instance), ``turn``, ``language``, ``tstamp`` (unix seconds); the conversations, moderation
  tags and every other field are left out;
- the ``arena-human-preference`` tables (Parquet or CSV), whose winner is one-hot:
  ``winner_model_a``, ``winner_model_b``, ``winner_tie`` (0/1), turned into ``winner``; a row
  without exactly one 1 is flagged for quarantine.  Their ``timestamp`` column is the time stamp.

A nested JSON value of a role (``"category": {"a": 1}``) is kept as its JSON text, in an array as
in JSON Lines; in Parquet a nested optional role is left empty.  Other names are mapped role -> column (``scorehouse ingest --format battles --model-a COL ...``;
:data:`ROLES`).  Every field is kept as text: validation (:mod:`transforms.validate_battles`)
decides what is a usable battle, so nothing is dropped here.  The benchmark is ``--benchmark``,
or ``chatbot-arena`` for a file named ``clean_battle*.json``.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import BATTLES_TABLE, Format, Parsed, ParseError, header_said
from scorehouse.transforms.parsers.instance_long import header_fields
from scorehouse.transforms.parsers.instance_parquet import MAGIC, columns_of, parquet_schema
from scorehouse.transforms.parsers.json_dump import has_key, key_lines
from scorehouse.transforms.parsers.text import json_lines, read_csv_records, read_text
from scorehouse.warehouse.schema import BATTLE_FIELDS, PARSER_REASON

# Role -> the column names that fill it by default, first found wins (the public arena dumps).
ROLES: dict[str, tuple[str, ...]] = {
    "model_a": ("model_a",),
    "model_b": ("model_b",),
    "winner": ("winner",),
    "judge": ("judge",),
    "instance": ("question_id",),
    "turn": ("turn",),
    "language": ("language",),
    "category": ("category",),
    "tstamp": ("tstamp", "timestamp"),
}
REQUIRED = ("model_a", "model_b", "winner")
# The options of a numeric judgement (``--winner-scale A,B``, ``--tie-band W``): kept in the mapping beside the
# roles, so the manifest records them and ``--reparse`` reads the file the same way.
SCALE_OPTIONS = ("winner_scale", "tie_band")
# The tie band is compared with this much room, relative to the scale's length: 1.6 - 1.5 is 0.10000000000000009.
TIE_TOLERANCE = 1e-9
# The one-hot winner of the arena-human-preference tables: winner value -> its 0/1 column.
ONE_HOT = {"model_a": "winner_model_a", "model_b": "winner_model_b", "tie": "winner_tie"}
# Compared lowercased: R and Excel write TRUE/FALSE, Python True/False, Parquet booleans true/false.
ONE = ("1", "1.0", "true")
ZERO = ("0", "0.0", "false")
ARENA_FILE = re.compile(r"^clean_battle.*\.json$")
ARENA_BENCHMARK = "chatbot-arena"


def is_battles(columns: set[str]) -> bool:
    """Whether a table with ``columns`` is one of battles by the default names."""
    return {"model_a", "model_b"} <= columns and ("winner" in columns or set(ONE_HOT.values()) <= columns)


def sniff(path: Path, head: bytes) -> bool:
    if head[:4] == MAGIC:
        schema = columns_of(path)
        return schema is not None and is_battles(set(schema))
    if b"model_a" not in head:  # in every text layout of battles (also in winner_model_a): most files stop here
        return False
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text[:1] in ("[", "{"):
        candidates = ("model_a", "model_b", "winner", *ONE_HOT.values())
        return is_battles({c for c in candidates if has_key(text, c)})
    return is_battles(set(header_fields(head)))


def resolve_roles(path: Path, present: set[str], columns: dict[str, str]) -> dict[str, str | None]:
    """Role -> the file's column (None when the file has none): the mapping, else the default names."""
    unknown = sorted(set(columns) - set(ROLES))
    if unknown:
        raise ParseError(path, f"unknown battle column role(s) {unknown}; the roles are {', '.join(ROLES)}")
    absent = {role: column for role, column in columns.items() if column not in present}
    if absent:
        named = ", ".join(f"{column!r} (as {role})" for role, column in absent.items())
        raise ParseError(path, f"no column {named} in the file; {header_said(sorted(present))}")
    return {
        role: columns.get(role, next((name for name in ROLES[role] if name in present), None)) for role in ROLES
    }


def winner_column(roles: dict[str, str | None]) -> tuple[pl.Expr, pl.Expr | None]:
    """The ``winner`` text and, for a one-hot layout, the reason flagging rows without exactly one 1."""
    if roles["winner"] is not None:
        return pl.col(roles["winner"]), None
    flags = {value: pl.col(column).str.strip_chars().str.to_lowercase() for value, column in ONE_HOT.items()}
    ones = {value: text.is_in(ONE) for value, text in flags.items()}
    zeros = {value: text.is_in(ZERO) for value, text in flags.items()}
    winner = pl.lit(None, dtype=pl.String)
    for value in ONE_HOT:  # exactly this one is 1 and the others 0
        others = [zeros[v] for v in ONE_HOT if v != value]
        winner = pl.when(ones[value] & pl.all_horizontal(others)).then(pl.lit(value)).otherwise(winner)
    given = pl.format(
        "one-hot winner columns not exactly one 1: " + ", ".join(f"{c}={{}}" for c in ONE_HOT.values()),
        *(pl.col(c).fill_null("null") for c in ONE_HOT.values()),
    )
    return winner, pl.when(winner.is_null()).then(given)


@dataclass(frozen=True)
class WinnerScale:
    """A numeric judgement's scale: ``a`` means model_a wins, ``b`` model_b wins, within ``band`` of the midpoint a tie."""

    a: float
    b: float
    band: float = 0.0

    @classmethod
    def of(cls, path: Path | str, options: dict[str, str]) -> WinnerScale | None:
        """The scale of the mapping's options (None without ``winner_scale``); ParseError when it cannot be read."""
        if "winner_scale" not in options:
            if "tie_band" in options:
                raise ParseError(path, "--tie-band goes with --winner-scale A,B (a numeric judgement)")
            return None
        ends = options["winner_scale"].split(",")
        try:
            a, b = (float(end) for end in ends)
            band = float(options.get("tie_band", "0"))
        except ValueError:
            raise ParseError(path, f"--winner-scale {options['winner_scale']!r} --tie-band {options.get('tie_band', '0')!r}: "
                             "give two numbers A,B (A: model_a wins, B: model_b wins) and a number W >= 0") from None
        if not (math.isfinite(a) and math.isfinite(b) and a != b and math.isfinite(band) and 0 <= band < abs(b - a) / 2):
            raise ParseError(path, f"--winner-scale {a:g},{b:g} --tie-band {band:g}: the ends must differ and the tie "
                             "band must be >= 0 and less than half the scale")
        return cls(a, b, band)

    def read(self, text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """(winner, outcome as text, reason) of the judgement ``text``: the winner by the end it is nearer to
        (a tie within the band of the midpoint, ends included), model_a's share ``(x - b) / (a - b)``, and why a
        row cannot be read (not a number, outside the scale)."""
        value = text.str.strip_chars().cast(pl.Float64, strict=False)
        low, high, middle = min(self.a, self.b), max(self.a, self.b), (self.a + self.b) / 2
        room = self.band + TIE_TOLERANCE * (high - low)
        toward_a = (value - middle) * (1 if self.a > self.b else -1) > 0
        winner = (pl.when((value - middle).abs() <= room).then(pl.lit("tie"))
                  .when(toward_a).then(pl.lit("model_a")).otherwise(pl.lit("model_b")))
        share = ((value - self.b) / (self.a - self.b)).clip(0.0, 1.0) + 0.0  # + 0.0: no -0.0 at the model_b end
        quoted = pl.format("'{}'", text.str.slice(0, 80))
        scale = f"--winner-scale {self.a:g},{self.b:g}"
        reason = (pl.when(text.is_null() | (text.str.strip_chars() == "")).then(pl.lit(f"empty judgement ({scale})"))
                  .when(value.is_null() | ~value.is_finite()).then(pl.format(f"non-numeric judgement {{}} ({scale})", quoted))
                  .when((value < low) | (value > high))
                  .then(pl.format(f"judgement {{}} outside the scale {low:g} to {high:g} ({scale})", quoted)))
        # A row that cannot be read keeps its judgement as given, for the quarantine to show.
        return pl.when(reason.is_null()).then(winner).otherwise(text), share.cast(pl.String), reason


def battle_rows(path: Path, frame: pl.DataFrame, present: set[str], benchmark: str | None,
                columns: dict[str, str], scale: WinnerScale | None = None) -> Parsed:
    """The parsed battles of ``frame`` (text columns and ``line``) read from ``path``."""
    if benchmark is None:
        if not ARENA_FILE.match(path.name):
            raise ParseError(path, "the benchmark of a battles file is not in it; pass --benchmark")
        benchmark = ARENA_BENCHMARK
    roles = resolve_roles(path, present, columns)
    one_hot = set(ONE_HOT.values()) <= present
    missing = [r for r in REQUIRED if roles[r] is None and not (r == "winner" and one_hot)]
    if missing:
        raise ParseError(
            path,
            f"no {', '.join(missing)} column: a battles file has model_a, model_b and winner (or the one-hot "
            f"{', '.join(ONE_HOT.values())}); map other names with --model-a, --model-b, --winner",
        )
    winner, flag = winner_column(roles)
    outcome = pl.lit(None, dtype=pl.String)
    if scale is not None:
        if roles["winner"] is None:
            raise ParseError(path, "--winner-scale reads a numeric judgement: name its column with --winner COL")
        winner, outcome, flag = scale.read(winner)
    fields = {
        role: winner if role == "winner" else pl.lit(None, dtype=pl.String) if roles[role] is None else pl.col(roles[role])
        for role in BATTLE_FIELDS
    }
    reason = {PARSER_REASON: flag} if flag is not None else {}
    rows = frame.select(
        benchmark=pl.lit(benchmark), **fields, outcome=outcome, line=pl.col("line"),
        source_row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64), **reason,
    )
    return Parsed(rows, table=BATTLES_TABLE)


def text_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as text; a time stamp as ISO 8601 in UTC (naive ones are taken as UTC)."""
    def as_text(name: str, dtype: pl.DataType) -> pl.Expr:
        if isinstance(dtype, pl.Datetime):
            utc = pl.col(name).dt.convert_time_zone("UTC") if dtype.time_zone else pl.col(name)
            return utc.dt.to_string("%Y-%m-%dT%H:%M:%S%.f+00:00")
        return pl.col(name).cast(pl.String)
    return frame.select(as_text(name, dtype) for name, dtype in frame.schema.items())


def read_parquet(path: Path, columns: dict[str, str]) -> tuple[pl.DataFrame, set[str]]:
    schema = parquet_schema(path)
    wanted = [c for c in (*columns.values(), *(n for names in ROLES.values() for n in names), *ONE_HOT.values())
              if c in schema]
    nested = {c: schema[c] for c in dict.fromkeys(wanted) if isinstance(schema[c], pl.List | pl.Struct | pl.Array)}
    # A nested optional role is simply absent; one the battles cannot do without is an error.
    needed = {*columns.values(), *ONE_HOT.values(), *(n for r in REQUIRED if r not in columns for n in ROLES[r])}
    unusable = [f"{c!r} ({dtype})" for c, dtype in nested.items() if c in needed]
    if unusable:
        raise ParseError(path, f"column(s) {', '.join(unusable)} hold nested values, not one value per battle; "
                         "flatten them to text or map the role to another column")
    flat = [c for c in dict.fromkeys(wanted) if c not in nested]
    frame = text_frame(pl.scan_parquet(path, glob=False).select(flat).collect())
    return frame.with_columns(line=pl.lit(None, dtype=pl.Int64)), set(schema) - set(nested)


def read_records(text: str, schema: dict[str, pl.DataType], *, array: bool) -> pl.DataFrame:
    """The records of a JSON array or of JSON Lines with the ``schema`` columns as text.

    A nested value (``"category": {"a": 1}``) becomes its JSON text in both layouts: Polars does so
    reading JSON Lines but refuses it in an array, so such an array is rewritten as JSON Lines first
    (record by record in Python: only arrays holding a nested value pay for it).
    """
    if not array:
        return json_lines(text, schema)
    try:
        return pl.read_json(io.BytesIO(text.encode()), schema=schema)
    except pl.exceptions.ComputeError as error:
        try:
            records = json.loads(text)
        except ValueError:
            raise error from None
        lines = "\n".join(map(json.dumps, records if isinstance(records, list) else [records]))
        return pl.read_ndjson(io.BytesIO(lines.encode()), schema=schema)


def read_json(path: Path, text: str, columns: dict[str, str]) -> tuple[pl.DataFrame, set[str]]:
    """A JSON array of objects or JSON Lines, the wanted keys as text (other keys never read), with lines."""
    candidates = dict.fromkeys((*columns.values(), *(n for names in ROLES.values() for n in names), *ONE_HOT.values()))
    present = {c for c in candidates if has_key(text, c)}
    schema = {c: pl.String() for c in present}
    array = text.lstrip()[:1] == "["
    try:
        frame = read_records(text, schema, array=array)
    except pl.exceptions.PolarsError as error:
        layout = "a JSON array of objects" if array else "JSON Lines (one object per line)"
        raise ParseError(path, f"not readable as {layout}: {str(error).splitlines()[0]}") from None
    if array:
        anchor = columns.get("model_a", "model_a")
        lines, _ = key_lines(text, anchor, frame.height)
        line = pl.Series("line", lines if lines is not None else [None] * frame.height, dtype=pl.Int64)
        frame = frame.with_columns(line)
    return frame, present


def parse_mapped(path: Path, benchmark: str | None, mapping: dict[str, str]) -> Parsed:
    """The battles of ``path`` with the roles of ``mapping`` (role -> the file's column) mapped, and its judgement
    read on the scale of its options (:data:`SCALE_OPTIONS`) when it is a number."""
    scale = WinnerScale.of(path, mapping)
    columns = {role: column for role, column in mapping.items() if role not in SCALE_OPTIONS}
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic == MAGIC:
        frame, present = read_parquet(path, columns)
    elif (text := read_text(path)).lstrip()[:1] in ("[", "{"):
        frame, present = read_json(path, text, columns)
    else:
        frame = read_csv_records(path, text)
        present = set(frame.columns) - {"line"}
    return battle_rows(path, frame, present, benchmark, columns, scale)


def parse(path: Path, benchmark: str | None) -> Parsed:
    return parse_mapped(path, benchmark, {})


register_format(
    Format(
        name="battles",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        parse_mapped=parse_mapped,
        description="pairwise battles, one per row (JSON, JSON Lines, CSV, Parquet): model_a, model_b, winner "
        "(or the one-hot winner_model_a/winner_model_b/winner_tie), optional judge, question_id, turn, language, "
        "category, tstamp (Chatbot Arena clean_battle, arena-human-preference)",
    )
)
