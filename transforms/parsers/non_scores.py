"""Files that sit among the score dumps but hold no scores of systems.

Recognised so that ingesting a whole data tree rejects each with what the
file is and why it is not loaded, instead of "unrecognised format".  Parsing
any of them raises :class:`ParseError` with that reason (see
``docs/raw-sources.md``):

- ``metadata`` of a COCO 2015 captioning team folder: the evaluation job's
  ``elapsedTime`` and ``exitCode``;
- ``id.txt`` listing the team folders next to it;
- ``flickr.json`` (Flickr8k-Expert style judgments ``{refs, cand, score}``):
  no candidate says which system wrote it, so there is no system to rank;
- MissingDataRanking experiment outputs ``task_level_correlations/*.json`` and
  ``instance_level_correlations/**/*.json`` (Himmi et al. 2023): Kendall tau
  between rankings before and after removing scores, i.e. results computed
  from a score file, not scores;
- WMT DA ``adwilcox-<lp>.csv``: the matrix of Wilcoxon rank-sum p-values
  between every two systems' human scores (a significance test of the
  scores in ``ad-sys-scores-<lp>.csv``, not scores of systems);
- mteb 2.x's ``run_settings.jsonl`` beside a model's results: the settings of
  each evaluation run (one JSON object per line), not scores.  (``model_meta.json``
  is read by the MTEB formats as the systems' metadata.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, NotScoresError, Parsed, ParseError
from scorehouse.transforms.parsers.text import read_text

DOCS = "see docs/raw-sources.md"
COCO_METADATA = re.compile(rb"^\s*(- )?elapsedTime:\s*[\d.]+\s*\n\s*exitCode:\s*-?\d+\s*$")
NAME_LIST = re.compile(rb"^([^\s/\\:,;]+\n)*[^\s/\\:,;]+\n?$")
CAPTION_JUDGMENTS = re.compile(rb'^\s*\{\s*"[^"\\]*"\s*:\s*\{\s*"(refs|cand|score)"\s*:')
WILCOXON_NAME = re.compile(r"^adwilcox-[a-z]+\.csv$")
MTEB_RUN_SETTINGS = "run_settings.jsonl"
EXPERIMENT_OUTPUT = re.compile(rb'^\s*\{\s*"file"\s*:\s*"(?P<file>[^"\\]*)"\s*,\s*"(seed|sample)"\s*:')


def is_coco_metadata(path: Path, head: bytes) -> bool:
    return path.name == "metadata" and bool(COCO_METADATA.match(head))


def is_folder_list(path: Path, head: bytes) -> bool:
    """``id.txt`` whose lines are single names, at least one of them a folder next to it
    (a copy may keep only some of the folders)."""
    if path.name != "id.txt" or not NAME_LIST.match(head):
        return False
    names = head.decode("utf-8", "replace").split()
    return any((path.parent / name).is_dir() for name in names)


def is_caption_judgments(path: Path, head: bytes) -> bool:
    return bool(CAPTION_JUDGMENTS.match(head)) and b'"cand"' in head and b'"refs"' in head


def is_experiment_output(path: Path, head: bytes) -> bool:
    return bool(EXPERIMENT_OUTPUT.match(head)) and b'"etas"' in head


def is_wilcoxon_matrix(path: Path, head: bytes) -> bool:
    """A square table whose header names the systems of its rows (the header line starts with a blank)."""
    if not WILCOXON_NAME.match(path.name):
        return False
    lines = head.decode("utf-8", "replace").split("\n")
    systems = lines[0].split()
    return lines[0].startswith(" ") and len(lines) > 1 and lines[1].split()[:1] == systems[:1]


def is_mteb_run_settings(path: Path, head: bytes) -> bool:
    return path.name == MTEB_RUN_SETTINGS and head.lstrip()[:1] == b"{"


def mteb_run_settings(path: Path) -> str:
    return (
        "mteb 2.x run settings (the configuration of each evaluation run, one JSON object per line), not scores; "
        "the scores are the <Task>.json results next to it"
    )


def coco_metadata(path: Path) -> str:
    return (
        "COCO captioning evaluation-job metadata (elapsedTime and exitCode of the server run), not scores; "
        f"the team's scores are in scores.txt and captions_val2014_*_eval.json next to it ({DOCS})"
    )


def folder_list(path: Path) -> str:
    names = read_text(path).split()
    return (
        f"list of the {len(names)} team folders next to it ({', '.join(names[:3])}, ...), not scores; each folder's "
        f"scores.txt and captions_val2014_*_eval.json are the scores ({DOCS})"
    )


def caption_judgments(path: Path) -> str:
    try:
        doc = json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise ParseError(path, f"not valid JSON ({err.msg}, column {err.colno})", err.lineno) from None
    entries = list(doc.values()) if isinstance(doc, dict) else []
    keys = sorted({k for e in entries if isinstance(e, dict) for k in e})
    if keys != ["cand", "refs", "score"]:
        raise ParseError(path, f"caption judgments with keys {keys}; no parser knows this layout, pass --format")
    return (
        f"{len(entries)} caption judgments {{refs, cand, score}} without any system id: no candidate caption says "
        "which system wrote it, so there is no system to rank; the ranked Flickr data are "
        f"RankingNLPSystems/final_df/FLICKR.csv and MissingDataRanking/final_df/Captioning/Flickr_data.csv ({DOCS})"
    )


def experiment_output(path: Path) -> str:
    source = EXPERIMENT_OUTPUT.match(path.read_bytes()[:4096])
    computed_from = source.group("file").decode("utf-8", "replace") if source else "a score file"
    return (
        f"MissingDataRanking experiment output (the paper's results: Kendall tau of rankings with scores removed, "
        f"computed from {computed_from}), not a score dump; ingest the score file itself ({DOCS})"
    )


def wilcoxon_matrix(path: Path) -> str:
    systems = read_text(path).split("\n", 1)[0].split()
    return (
        f"WMT DA significance tests: Wilcoxon rank-sum p-values between every two of {len(systems)} systems, "
        "not scores; the human scores are ad-sys-scores-<lp>.csv and ad-seg-scores-<lp>.csv"
    )


# (recogniser, explanation) per kind of file; the recognisers exclude one another.
KINDS: tuple[tuple[Callable[[Path, bytes], bool], Callable[[Path], str]], ...] = (
    (is_coco_metadata, coco_metadata),
    (is_folder_list, folder_list),
    (is_caption_judgments, caption_judgments),
    (is_experiment_output, experiment_output),
    (is_wilcoxon_matrix, wilcoxon_matrix),
    (is_mteb_run_settings, mteb_run_settings),
)


def sniff(path: Path, head: bytes) -> bool:
    return any(recognise(path, head) for recognise, _ in KINDS)


def parse(path: Path, benchmark: str | None) -> Parsed:
    with open(path, "rb") as handle:
        head = handle.read(64 * 1024)
    for recognise, explain in KINDS:
        if recognise(path, head):
            raise NotScoresError(path, explain(path))
    raise ParseError(path, "not one of the known non-score files (COCO metadata, id.txt, caption judgments, "
                     "experiment outputs, Wilcoxon matrices, mteb run settings); pass another --format")


FORMAT = register_format(
    Format(
        name="known-non-score",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="files known to hold no scores of systems (COCO metadata and id.txt, flickr.json, "
        "MissingDataRanking correlation outputs, WMT DA Wilcoxon p-values, mteb 2.x run_settings.jsonl): skipped with the reason",
    )
)
