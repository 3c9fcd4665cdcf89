"""COCO 2015 image-captioning challenge results, one folder per team.

The automatic-metric results of the teams of the MS COCO Captioning
Challenge 2015 (Chen et al., "Microsoft COCO Captions: Data Collection and
Evaluation Server", 2015), as stored by MissingDataRanking under
``data_generation/data/Captioning/coco_captioning_challenge/<team>/``:

- ``scores.txt``: lines ``<METRIC><split>: <value>`` for CIDEr, Bleu_1..4,
  ROUGE_L and METEOR on ``Test5`` and ``Test40`` (the test2014 split scored
  against 5 and 40 references), six decimals;
- ``captions_<split>_<submission>_eval.json``: ``{metric: value}`` for
  ``val2014``, ``test2014c5`` and ``test2014c40``, three decimals.

Benchmark ``coco-2015``, system = the team folder, no instance (system-level
scores), metric = the metric name as published, task = ``test-c5``,
``test-c40`` or ``val2014``.  **Each split has one owner, so no cell is
loaded twice**: the test splits come from ``scores.txt`` (the eval JSONs of
the test splits hold the same values rounded to three decimals, checked on
all 16 teams, and are refused with that reason), ``val2014`` from its eval
JSON, its only source.  Two val2014 quirks:

- an eval JSON in which every metric is 0.000 (MSR_Captivator,
  NearestNeighbor, mmitchell) is the evaluation server's record for a team
  that submitted no val2014 captions, not a score of zero: refused;
- the val2014 submission is sometimes another system than the one the team
  ran on test2014 (``karpathy``: ``LSTM`` on val, ``VRNN`` on test;
  ``human``: ``rand``, random captions, on val): when the submission label
  of the file name is not the label of the team's test2014 eval files in the
  same folder, the system is ``<team>:<label>``, so a ranking never credits
  one system with another's scores.

Both formats are folder-named (``folder_levels=1``): every team's file is called ``scores.txt``
and two teams can hold byte-identical eval files (``junhua.mao`` and
``mRNN_share.JMao`` on val2014), so the warehouse keys these loads by folder too.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, NotScoresError, Parsed, ParseError
from scorehouse.transforms.parsers.json_dump import key_lines, load_json, scalar_text
from scorehouse.transforms.parsers.text import read_text, split_lines
from scorehouse.warehouse.schema import PARSED_ROWS

BENCHMARK = "coco-2015"
SCORE_LINE = re.compile(rb"^\s*[A-Za-z][A-Za-z0-9_]*Test\d+\s*:")
KEY = r"^(?P<metric>[A-Za-z][A-Za-z0-9_]*?)Test(?P<refs>\d+)$"
EVAL_FILE = re.compile(r"^captions_(?P<split>val2014|test2014c\d+)_(?P<label>.+)_eval\.json$")
VAL_SPLIT = "val2014"


def sniff_scores(path: Path, head: bytes) -> bool:
    return path.name == "scores.txt" and bool(SCORE_LINE.match(head))


def sniff_eval(path: Path, head: bytes) -> bool:
    return bool(EVAL_FILE.match(path.name)) and head.lstrip()[:1] == b"{"


def parse_scores(path: Path, benchmark: str | None) -> Parsed:
    fields = split_lines(path, read_text(path), separator=":", columns=["key", "value"])
    if fields.height == 0:
        raise ParseError(path, "no 'METRIC<split>: value' line; a COCO scores.txt lists the team's test scores")
    keys = fields.with_columns(found=pl.col("key").str.strip_chars().str.extract_groups(KEY))
    bad = keys.filter(pl.col("found").struct.field("metric").is_null())
    if bad.height:
        raise ParseError(
            path, f"{bad['key'][0].strip()!r} is not METRIC followed by a split Test5 or Test40 (e.g. CIDErTest5)",
            bad["line"][0],
        )
    rows = keys.select(
        benchmark=pl.lit(benchmark or BENCHMARK),
        task=pl.format("test-c{}", pl.col("found").struct.field("refs")),
        metric=pl.col("found").struct.field("metric"),
        instance=pl.lit(None, dtype=pl.String()),
        system=pl.lit(path.parent.name),
        value=pl.col("value").str.strip_chars(),
        line="line",
    )
    return Parsed(rows.cast(PARSED_ROWS))


def val_system(path: Path, team: str, label: str) -> tuple[str, list[str]]:
    """The system a val2014 file scores: the team, unless its label is not the team's test label."""
    tests = {m.group("label") for p in path.parent.glob("captions_test2014*_eval.json") if (m := EVAL_FILE.match(p.name))}
    if not tests:
        return team, [f"no test2014 eval file next to it: cannot check that val2014 submission {label!r} "
                      f"is the system {team!r} ran on test; scored as {team!r}"]
    if label in tests:
        return team, []
    system = f"{team}:{label}"
    return system, [f"val2014 submission {label!r} is not the one evaluated on test2014 "
                    f"({', '.join(sorted(tests))}): another system, scored as {system!r}"]


def parse_eval(path: Path, benchmark: str | None) -> Parsed:
    found = EVAL_FILE.match(path.name)
    if found is None:
        raise ParseError(path, "not a COCO eval file name captions_<val2014|test2014cN>_<submission>_eval.json")
    split, label, team = found.group("split"), found.group("label"), path.parent.name
    if split != VAL_SPLIT:
        raise NotScoresError(
            path,
            f"{split} scores of team {team!r} are loaded from scores.txt in the same folder (six decimals; this "
            "file repeats them rounded to three), so the cells are not loaded twice; nothing to ingest here",
        )
    text, doc = load_json(path, what="a COCO eval file")
    if not isinstance(doc, dict) or not doc:
        raise ParseError(path, f"the top level is {str(doc)[:40]!r}; a COCO eval file is one object {{metric: value}}")
    nested = [k for k, v in doc.items() if isinstance(v, (dict, list))]
    if nested:
        raise ParseError(path, f"{nested[0]!r} holds a JSON {type(doc[nested[0]]).__name__}, not a score")
    values = pl.Series([scalar_text(v) for v in doc.values()], dtype=pl.String())
    if values.str.strip_chars().cast(pl.Float64, strict=False).eq(0).all():
        raise NotScoresError(
            path,
            f"every metric is 0 in team {team!r}'s val2014 eval: the evaluation server's record of a team that "
            "submitted no val2014 captions, not a score of zero; nothing to ingest",
        )
    system, problems = val_system(path, team, label)
    # A handful of metrics: the line of each is where its key is (null if the key repeats).
    lines = [(key_lines(text, key, 1)[0] or [None])[0] for key in doc]
    rows = pl.DataFrame(
        {"metric": list(doc), "value": values, "line": lines},
        schema={"metric": pl.String(), "value": pl.String(), "line": pl.Int64()},
    )
    rows = rows.select(
        benchmark=pl.lit(benchmark or BENCHMARK), task=pl.lit(VAL_SPLIT), metric="metric",
        instance=pl.lit(None, dtype=pl.String()), system=pl.lit(system), value="value",
        line="line",
    )
    return Parsed(rows.cast(PARSED_ROWS), tuple(problems))


SCORES_FORMAT = register_format(
    Format(
        name="coco-scores-txt",
        parser_version=1,
        sniff=sniff_scores,
        parse=parse_scores,
        description="COCO 2015 captioning team scores.txt ('METRIC<Test5|Test40>: value', system-level)",
        folder_levels=1,
    )
)
EVAL_FORMAT = register_format(
    Format(
        name="coco-eval-json",
        parser_version=1,
        sniff=sniff_eval,
        parse=parse_eval,
        description="COCO 2015 captioning captions_<split>_<submission>_eval.json ({metric: value}); val2014 only",
        folder_levels=1,
    )
)
