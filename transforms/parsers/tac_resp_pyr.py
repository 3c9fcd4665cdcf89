"""TAC human judgments of multi-document summaries (``tac.YY.mds.gen.resp-pyr``).

The NIST TAC 2008, 2009 and 2011 summarization-track manual evaluations
(Dang and Owczarzak, "Overview of the TAC 2008 Update Summarization Task";
"Overview of the TAC 2009 Summarization Track"; Owczarzak and Dang,
"Overview of the TAC 2011 Summarization Track"), as stored by MissingDataRanking
under ``data_generation/data/TAC/``: one JSON object keyed by topic, each
``{references: [...], annotations: [{summ_id, topic_id, text, responsiveness,
pyr_score[, pyr_mod_score]}, ...]}``.

Rows: instance = the topic key (``D0845``, ``D1122-A``), system = ``summ_id``
as published (peers ``0``..``57`` / ``1``..``55`` / ``1``..``50``; human
summarizers ``A``..``H``, each writing for only some topics), metric =
``H:<judgment>`` for every annotation key but ``summ_id``, ``topic_id`` and
``text`` (so ``H:responsiveness``, ``H:pyr_score``, ``H:pyr_mod_score``, the
last absent in 2011).  Responsiveness is on the scale of its year (1-5 in
2008 and 2011, 1-10 in 2009).  References are texts, not scores.

Benchmark ``tac-YY-human``, task ``YY``: the RankingNLPSystems copies
(``tac-YY``, from ``TAC_YY.csv`` and the pickles) name systems by column
position ``M0``..., topics by position, rescale responsiveness to 0-1 and
put a different human summarizer under the same ``M58`` from topic to topic;
mixing the two namings in one benchmark would compare different systems.
The line of an annotation's rows is the line of its ``"summ_id"`` key (line 1
in the released one-line files).
"""

from __future__ import annotations

import re
from pathlib import Path

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError, rows_frame
from scorehouse.transforms.parsers.json_dump import file_naming, key_lines, load_json, scalar_text

KNOWN_FILE = re.compile(r"^tac\.(\d\d)\..*resp-pyr$")
NOT_SCORES = ("summ_id", "topic_id", "text")
SNIFF = re.compile(rb'^\s*\{\s*"[^"\\]+"\s*:\s*\{\s*"(references|annotations)"\s*:\s*\[')


def sniff(path: Path, head: bytes) -> bool:
    return bool(SNIFF.match(head))


def naming(path: Path, benchmark: str | None) -> tuple[str, str]:
    return file_naming(path, benchmark, known=KNOWN_FILE, template="tac-{}-human", hint="TAC file (tac.YY.mds.gen.resp-pyr)")


def annotations(path: Path, doc: object) -> list[tuple[str, dict]]:
    """(topic, annotation) of every annotation, in document order."""
    if not isinstance(doc, dict):
        raise ParseError(path, f"the top level is a JSON {type(doc).__name__}; a TAC file is an object keyed by topic")
    out = []
    for topic, entry in doc.items():  # one pass per topic, to check its shape
        if not isinstance(entry, dict) or not isinstance(entry.get("annotations"), list):
            raise ParseError(path, f"topic {topic!r} has no list of 'annotations'")
        for place, note in enumerate(entry["annotations"]):
            summarizer = note.get("summ_id") if isinstance(note, dict) else None
            if not isinstance(summarizer, str) or not summarizer.strip():
                raise ParseError(  # by its place: an error never shows a file's content
                    path, f"topic {topic!r}: annotation {place} has no 'summ_id' naming its summarizer"
                )
            out.append((topic, note))
    return out


def parse(path: Path, benchmark: str | None) -> Parsed:
    text, doc = load_json(path, what="a TAC judgments file")
    benchmark, task = naming(path, benchmark)
    found = annotations(path, doc)
    lines, problems = key_lines(text, "summ_id", len(found))
    lines = lines if lines is not None else [None] * len(found)
    table: dict[str, list] = {"instance": [], "system": [], "metric": [], "value": [], "line": []}
    for (topic, note), line in zip(found, lines, strict=True):
        for key, value in note.items():
            if key in NOT_SCORES:
                continue
            if isinstance(value, (dict, list)):
                raise ParseError(
                    path, f"topic {topic!r}, summarizer {note['summ_id']!r}: {key!r} holds a JSON "
                    f"{type(value).__name__}, not a score", line,
                )
            table["instance"].append(topic)
            table["system"].append(note["summ_id"])
            table["metric"].append(f"H:{key}")
            table["value"].append(scalar_text(value))
            table["line"].append(line)
    rows = rows_frame(benchmark, task, table["metric"], table["instance"], table["system"], table["value"], table["line"])
    return Parsed(rows, tuple(problems))


FORMAT = register_format(
    Format(
        name="tac-resp-pyr-json",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="TAC human judgments (topic -> annotations with summ_id, responsiveness, pyramid scores)",
    )
)
