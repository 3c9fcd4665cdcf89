"""How to read a file, as a mapping of its own (an inbox's ``NAME.scorehouse.toml``, docs/inbox-mappings.md).

A mapping table holds what the ingest options say on the command line::

    format = "battles"                       # optional: a format's name (default: from the columns, or detected)
    benchmark = "alpaca-eval"                # --benchmark
    higher_is_better = true                  # --higher-is-better (a user table, a json-path file)
    json_path = "{system}.pass@1.{task}"     # --json-path
    system_from_folder = true                # --system-from-folder
    [columns]                                # --system, --score, --score-columns (a list: each glob),
    model_a = "generator_1"                  # --model-a ..., --winner-scale, --tie-band
    winner = "preference"
    winner_scale = "1,2"

:func:`file_settings` checks it and gives the format, benchmark, column mapping and direction that
``scorehouse ingest`` would use; :func:`mapped_format` is the one rule choosing a format from a mapping's roles.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.transforms.parsers import FORMATS
from scorehouse.transforms.parsers.battles import ROLES as BATTLE_ROLES
from scorehouse.transforms.parsers.battles import SCALE_OPTIONS
from scorehouse.transforms.parsers.json_path import check_mapping
from scorehouse.transforms.parsers.user_table import ROLES as TABLE_ROLES
from scorehouse.transforms.parsers.user_table import check_options, score_columns_option

KEYS = ("format", "benchmark", "higher_is_better", "json_path", "system_from_folder", "columns")


class MappingError(ScorehouseError, ValueError):
    """A mapping that cannot be used: says which file, which key and what to do."""


@dataclass(frozen=True)
class FileSettings:
    """What to read a file with: the ingest options of a mapping (None: not given)."""

    format: str | None = None
    benchmark: str | None = None
    columns: tuple[tuple[str, str], ...] = ()  # role -> the file's column (or a format's option), sorted
    higher_is_better: bool | None = None

    @property
    def mapping(self) -> dict[str, str] | None:
        return dict(self.columns) or None


def mapped_format(columns: dict[str, str]) -> str:
    """The format that reads a file by the mapping ``columns``: json-path for a template, battles for battle roles
    or a judgement scale, else a user table; MappingError when roles of two of them are mixed."""
    keys = set(columns)
    battle = keys - set(TABLE_ROLES)
    if keys & {"json_path", "system_from"}:
        if keys - {"json_path", "system_from"}:
            raise MappingError(f"json_path reads a JSON document by its keys, not by columns ({', '.join(sorted(keys))})")
        return "json-path"
    unknown = sorted(battle - set(BATTLE_ROLES) - set(SCALE_OPTIONS))
    if unknown:
        raise MappingError(f"unknown column role(s) {unknown}; roles are {', '.join(TABLE_ROLES)} for a table and "
                           f"{', '.join((*BATTLE_ROLES, *SCALE_OPTIONS))} for battles")
    if battle and keys - set(BATTLE_ROLES) - set(SCALE_OPTIONS):
        raise MappingError(f"the columns of battles ({', '.join(sorted(battle))}) and of a score table "
                           f"({', '.join(sorted(keys - set(BATTLE_ROLES)))}) cannot be read from one file")
    return "battles" if battle else "user-table"


def column_table(where: Path, table: object) -> dict[str, str]:
    """The ``[columns]`` table as role -> text (``score_columns`` may be a list of globs)."""
    if not isinstance(table, dict):
        raise MappingError(f"{where}: [columns] must be a table of role = \"column\"")
    columns = {}
    for role, value in table.items():
        if role == "score_columns" and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            columns[role] = score_columns_option(value)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            columns[role] = str(value)
        else:
            raise MappingError(f"{where}: columns.{role} = {value!r}: give the column's name as text")
    return columns


def file_settings(where: Path, table: dict) -> FileSettings:
    """The settings of the mapping ``table`` read from the TOML file ``where``; MappingError naming it otherwise."""
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise MappingError(f"{where}: unknown key(s) {unknown}; the keys are {', '.join(KEYS)} (docs/inbox-mappings.md)")
    columns = column_table(where, table.get("columns", {}))
    if "json_path" in table:
        columns |= {"json_path": str(table["json_path"])} | ({"system_from": "folder"}
                                                             if table.get("system_from_folder") else {})
    direction = table.get("higher_is_better")
    benchmark = table.get("benchmark")
    if direction is not None and not isinstance(direction, bool) or benchmark is not None and not isinstance(benchmark, str):
        raise MappingError(f"{where}: higher_is_better must be true or false and benchmark a text")
    try:
        format = mapped_format(columns) if columns else table.get("format")
        if table.get("format") not in (None, format):
            raise MappingError(f"format {table['format']!r} does not read the columns given (they read as {format!r})")
        if format is not None and format not in FORMATS:
            raise MappingError(f"unknown format {format!r}; known: {', '.join(sorted(FORMATS))}")
        if format == "json-path":
            check_mapping(columns, where)
        elif format == "user-table":
            check_options(columns)
    except (MappingError, ValueError) as error:
        raise MappingError(f"{where}: {getattr(error, 'problem', error)}") from None
    return FileSettings(format, benchmark, tuple(sorted(columns.items())), direction)
