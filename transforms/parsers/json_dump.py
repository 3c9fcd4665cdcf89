"""Reading JSON score dumps with their values as published and the line of each record.

Shared by the parsers of the raw human-judgment sources (USR, TAC) and of
the COCO evaluation files.  Numbers are kept as their JSON text (``0.250``
stays ``0.250``; ``NaN`` stays ``NaN`` for validation to quarantine), so no
value is coerced on the way in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.text import lines_frame, read_text
from scorehouse.transforms.slices import repeated


class JsonNumber(str):
    """The text of a JSON number, told apart from a JSON string that looks like one."""


def load_json(path: Path, *, what: str) -> tuple[str, object]:
    """The file's text and its JSON document, numbers as :class:`JsonNumber` text; ParseError naming the line otherwise."""
    text = read_text(path)
    try:
        doc = json.loads(text, parse_float=JsonNumber, parse_int=JsonNumber, parse_constant=JsonNumber)
    except json.JSONDecodeError as err:
        raise ParseError(path, f"not valid JSON ({err.msg}, column {err.colno}); {what} is one JSON document", err.lineno) from None
    except RecursionError:
        raise ParseError(path, f"objects nested too deeply for {what}") from None
    try:  # a \ud800 escape decodes to a lone surrogate, which no UTF-8 column can hold
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as err:
        raise ParseError(
            path, f"a \\u escape that is half of a surrogate pair ({err.object[err.start:err.end]!r}) is not a character; "
            "fix the escape"
        ) from None
    return text, doc


def scalar_text(value: object) -> str | None:
    """A JSON scalar as text (numbers were read as text already); null stays null,
    booleans and nested values become their JSON text for validation to judge."""
    if value is None or isinstance(value, str):
        return None if value is None else str(value)
    return json.dumps(value)


def key_pattern(key: str) -> str:
    """The regex of the object key ``"key":`` in JSON text, not inside a string (an escaped quote precedes those).

    Line by line (``^`` is a line's start): :func:`key_lines` counts it per line, :func:`has_key` searches for it.
    """
    return r'(?:^|[^\\])"' + re.escape(key) + r'"\s*:'


def has_key(text: str, key: str) -> bool:
    """Whether ``text`` holds the object key ``key`` (:func:`key_pattern`).

    The plain substring ``"key"`` is looked for first: absent (most candidate
    keys of a file), no regex scans the text at all.
    """
    return f'"{key}"' in text and re.search(key_pattern(key), text, re.MULTILINE) is not None


def key_lines(text: str, key: str, count: int) -> tuple[list[int] | None, list[str]]:
    """The line of each of the ``count`` occurrences of the object key ``key``, in document order.

    One vectorised pass: the occurrences of ``"key":`` not preceded by a
    backslash (so not inside a JSON string) are counted per line and each line
    number repeated that many times.  When the count differs from ``count``
    (repeated keys, of which JSON keeps the last), the lines are unknown:
    None and a problem saying so.
    """
    counted = lines_frame(text).select("line", n=pl.col("text").str.count_matches(key_pattern(key)).fill_null(0))
    found = repeated(counted.get_column("line"), counted.get_column("n")).drop_nulls()
    if found.len() == count:
        return found.to_list(), []
    return None, [
        f"{found.len()} occurrences of the key {key!r} in the text but {count} records in the JSON; "
        "line numbers are left empty"
    ]


def file_naming(path: Path, benchmark: str | None, *, known: re.Pattern[str], template: str, hint: str) -> tuple[str, str]:
    """(benchmark, task) of a raw-source file: from its name when ``known`` matches (task = the
    first group, benchmark = ``template`` filled with it), else ``benchmark`` is required and the
    task is the file name without ``.json``."""
    found = known.match(path.name)
    if found:
        return benchmark or template.format(found.group(1)), found.group(1)
    if benchmark is None:
        raise ParseError(path, f"not a known {hint}, so its benchmark is unknown; pass --benchmark")
    return benchmark, path.name.removesuffix(".json")
