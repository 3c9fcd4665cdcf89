"""USR human ratings of dialogue responses (``{pc,tc}_usr_data.json``).

The annotations released with Mehri and Eskenazi, "USR: An Unsupervised and
Reference Free Evaluation Metric for Dialog Generation" (ACL 2020), as stored
by MissingDataRanking under ``data_generation/data/Dialogue/``: a list of
contexts ``{context, fact, annotators: [3 names], responses: [...]}``, each
response ``{response, model, <rating>: [one value per annotator], ...}`` with
the ratings Understandable, Natural, Maintains Context, Engaging, Uses
Knowledge and Overall.

Rows: instance = the context's position in the list (0-based, as in
``final_df/Dialogue/DIALOGUE_*_data.csv``), system = ``model``, and per rating

- ``H:<rating>``: the **mean over the annotators**, the score USR and the
  ranking papers use (Himmi et al. 2023 store exactly these means as their
  ``H:*`` columns); computed only when every annotator's value is a number,
  otherwise null and a problem says how many;
- ``H:<rating>@<annotator>``: each annotator's value as published, so the
  raw judgments stay queryable (the metric rules mark them not ranked, and
  junk in them is what validation quarantines).

Benchmarks ``usr-pc-human`` / ``usr-tc-human`` (task ``pc`` / ``tc``): the
systems are named by model (``KV-MemNN``, ``Original Ground Truth``...),
unlike the positional ``M0``... of ``usr-pc``, and the scale is raw, unlike
the negated ``usr-pc-mdr``; so they share a benchmark with neither.  Texts
(context, fact, response) are not scores and are left out.  The line of a
response's rows is the line of its ``"model"`` key.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.json_dump import JsonNumber, file_naming, key_lines, load_json, scalar_text
from scorehouse.warehouse.schema import PARSED_ROWS

KNOWN_FILE = re.compile(r"^(pc|tc)_usr_data\.json$")
TEXT_KEYS = ("response", "model")
SNIFF = re.compile(rb'^\s*\[\s*\{\s*"(context|fact|annotators|responses)"\s*:')


def sniff(path: Path, head: bytes) -> bool:
    return bool(SNIFF.match(head)) and b'"annotators"' in head and b'"responses"' in head


def naming(path: Path, benchmark: str | None) -> tuple[str, str]:
    return file_naming(path, benchmark, known=KNOWN_FILE, template="usr-{}-human", hint="USR file ({pc,tc}_usr_data.json)")


def responses(path: Path, doc: object) -> list[tuple[int, list[str], dict]]:
    """(context index, annotators, response object) of every response, in document order."""
    if not isinstance(doc, list):
        raise ParseError(path, f"the top level is a JSON {type(doc).__name__}; a USR file is a list of contexts")
    out = []
    for index, context in enumerate(doc):  # one pass per context, to check its shape
        if not isinstance(context, dict) or not isinstance(context.get("responses"), list):
            raise ParseError(path, f"context {index} has no list of 'responses'")
        annotators = context.get("annotators")
        if not isinstance(annotators, list) or not annotators or not all(isinstance(a, str) and a.strip() for a in annotators):
            raise ParseError(path, f"context {index}: 'annotators' is not a list of the annotators' names")
        for place, response in enumerate(context["responses"]):  # by place: an error never shows a file's content
            if not isinstance(response, dict) or not isinstance(response.get("model"), str):
                raise ParseError(path, f"context {index}: response {place} has no 'model' name")
            out.append((index, annotators, response))
    return out


def shown(value: object) -> str:
    """A JSON value as the file writes it, cut to 60 characters, for messages."""
    if isinstance(value, list):
        return ("[" + ", ".join(str(scalar_text(v)) for v in value) + "]")[:60]
    return str(scalar_text(value) if not isinstance(value, dict) else value)[:60]


def ratings(path: Path, found: list[tuple[int, list[str], dict]], lines: list[int | None]) -> pl.DataFrame:
    """One row per (response, rating) with the annotators' values as a list of text."""
    table: dict[str, list] = {
        "instance": [], "system": [], "rating": [], "annotator": [], "value": [], "number": [], "line": []
    }
    for (index, annotators, response), line in zip(found, lines, strict=True):
        for key, values in response.items():
            if key in TEXT_KEYS:
                continue
            if not isinstance(values, list) or len(values) != len(annotators):
                raise ParseError(
                    path,
                    f"context {index}, model {response['model']!r}: {key!r} is {shown(values)}; "
                    f"expected one rating per annotator ({len(annotators)}: {', '.join(annotators)})",
                    line,
                )
            table["instance"].append(str(index))
            table["system"].append(response["model"])
            table["rating"].append(key)
            table["annotator"].append(annotators)
            table["value"].append([scalar_text(v) for v in values])
            # Only JSON numbers count for the mean: a quoted "3" is text, as published.
            table["number"].append([v if isinstance(v, JsonNumber) else None for v in values])
            table["line"].append(line)
    return pl.DataFrame(
        table,
        schema={"instance": pl.String(), "system": pl.String(), "rating": pl.String(),
                "annotator": pl.List(pl.String()), "value": pl.List(pl.String()), "number": pl.List(pl.String()),
                "line": pl.Int64()},
    )


def parse(path: Path, benchmark: str | None) -> Parsed:
    text, doc = load_json(path, what="a USR ratings file")
    benchmark, task = naming(path, benchmark)
    found = responses(path, doc)
    lines, problems = key_lines(text, "model", len(found))
    table = ratings(path, found, lines if lines is not None else [None] * len(found))
    numbers = pl.col("number").list.eval(pl.element().cast(pl.Float64, strict=False))
    means = table.with_columns(numbers=numbers).select(
        "instance", "system", "line",
        metric=pl.format("H:{}", "rating"),
        value=pl.when(pl.col("numbers").list.eval(pl.element().is_finite().fill_null(False)).list.all())
        .then(pl.col("numbers").list.mean().cast(pl.String))
        .otherwise(None),
        order=pl.lit(0),
    )
    unscored = means.filter(pl.col("value").is_null()).height
    if unscored:
        problems.append(
            f"{unscored} mean rating(s) left empty because an annotator's value is not a number "
            "(the per-annotator rows keep the values for validation to report)"
        )
    each = table.explode("annotator", "value").select(
        "instance", "system", "line",
        metric=pl.format("H:{}@{}", "rating", "annotator"),
        value="value",
        order=pl.lit(1),
    )
    rows = (
        pl.concat([means, each])
        .with_row_index("_i")
        .sort("line", "order", "_i", nulls_last=True, maintain_order=True)
        .select(benchmark=pl.lit(benchmark), task=pl.lit(task), metric="metric", instance="instance",
                system="system", value="value", line="line")
    )
    return Parsed(rows.cast(PARSED_ROWS), tuple(problems))


FORMAT = register_format(
    Format(
        name="usr-ratings-json",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="USR human ratings (list of contexts, responses rated by 3 annotators): mean and per-annotator",
    )
)
