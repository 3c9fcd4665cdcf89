"""GEM submission score files (``*.scores.json``).

One JSON object per submission to the GEM benchmark (Gehrmann et al. 2021,
"The GEM Benchmark: Natural Language Generation, its Evaluation and
Metrics"), as stored by MissingDataRanking under
``data_generation/gem/scores_and_outputs/GEM-outputs/``: ``submission_name``,
``param_count``, then one object per dataset split (challenge subsets
included) holding ``N``, length and lexical statistics and metric objects
such as ``rouge1: {precision, recall, fmeasure}``.

Rows: system = ``submission_name``; task = the split name, metric = the
dot-joined path inside it (``rouge1.fmeasure``, ``local_recall.1``); the
submission-wide ``param_count`` (and any other top-level scalar) is task
``submission``.  Keys ending in ``_file`` hold file paths, not scores, and
are left out.  Values keep their JSON text (``0.6792`` stays ``0.6792``);
``null``, ``"-"`` and ``""`` are missing.  A split a system did not submit
is simply absent: no rows.

Line numbers come from one vectorised pass over the text: in the usual
one-key-per-line layout, the n-th line that opens with a key holding a
scalar is the n-th leaf in document order.  If the layout differs (minified
JSON, repeated keys), lines are null and a problem says so.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.json_dump import load_json, scalar_text
from scorehouse.transforms.parsers.leaderboard_table import missing_to_null, normalized_names
from scorehouse.warehouse.schema import PARSED_ROWS

SUBMISSION_TASK = "submission"
NAME_KEY = "submission_name"
# A line opening with a key whose value is a scalar (not an object or array).
SCALAR_KEY_LINE = r'^\s*"((?:[^"\\]|\\.)*)"\s*:\s*[^\s{\[]'


def sniff(path: Path, head: bytes) -> bool:
    return path.name.endswith(".scores.json") and head.lstrip()[:1] == b"{" and f'"{NAME_KEY}"'.encode() in head


def flatten(obj: dict, prefix: str, *, path: Path, section: str) -> list[tuple[str, str, object]]:
    """(dotted path, last key, value) of every scalar under ``obj``, in order."""
    out: list[tuple[str, str, object]] = []
    for key, value in obj.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.extend(flatten(value, name, path=path, section=section))
        elif isinstance(value, list):
            raise ParseError(
                path, f"{section!r}: {name!r} holds an array; GEM score files hold only objects and numbers"
            )
        else:
            out.append((name, key, value))
    return out


def leaf_lines(text: str, keys: list[str]) -> tuple[list[int] | None, list[str]]:
    """The line of each leaf, when the file has one scalar key per line in
    leaf order; otherwise None and the reason."""
    lines = pl.Series(text.split("\n"), dtype=pl.String()).str.extract(SCALAR_KEY_LINE, 1)
    found = pl.DataFrame({"key": lines}).with_row_index("line", offset=1).drop_nulls("key")
    if found.height == len(keys) and found["key"].to_list() == keys:
        return found["line"].cast(pl.Int64()).to_list(), []
    return None, [
        f"{found.height} lines open with a scalar key but the JSON has {len(keys)} scalar values "
        "(minified layout or repeated keys, of which JSON keeps the last); line numbers are left empty"
    ]


def parse(path: Path, benchmark: str | None) -> Parsed:
    text, doc = load_json(path, what="a GEM score file")
    if not isinstance(doc, dict):
        raise ParseError(path, f"the top level is a JSON {type(doc).__name__}; a GEM score file is one object")
    name = doc.get(NAME_KEY)
    if not isinstance(name, str) or not name.strip():
        raise ParseError(path, f"{NAME_KEY!r} is {name!r}; it must name the submission")
    tasks: list[str] = []
    leaves: list[tuple[str, str, object]] = []
    for key, value in doc.items():  # one pass per dataset split
        inner = value if isinstance(value, dict) else {key: value}
        section = flatten(inner, "", path=path, section=key)
        tasks.extend([key if isinstance(value, dict) else SUBMISSION_TASK] * len(section))
        leaves.extend(section)
    lines, problems = leaf_lines(text, [last for _, last, _ in leaves])
    frame = pl.DataFrame(
        {
            "task": tasks,
            "metric": [dotted for dotted, _, _ in leaves],
            "value": [scalar_text(v) for _, _, v in leaves],
            "line": lines if lines is not None else [None] * len(leaves),
        },
        schema={"task": pl.String(), "metric": pl.String(), "value": pl.String(), "line": pl.Int64()},
    )
    rows = frame.filter(
        ~((pl.col("task") == SUBMISSION_TASK) & (pl.col("metric") == NAME_KEY)),
        ~pl.col("metric").str.ends_with("_file"),
    ).select(
        benchmark=pl.lit(benchmark or "gem"),
        task="task",
        metric="metric",
        instance=pl.lit(None, dtype=pl.String()),
        system=normalized_names(pl.lit(name)),
        value=missing_to_null(pl.col("value")),
        line="line",
    )
    return Parsed(rows=rows.cast(PARSED_ROWS), problems=tuple(problems))


FORMAT = register_format(
    Format(
        name="gem-scores-json",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="GEM submission scores (*.scores.json: submission_name, param_count, one object per split)",
    )
)
