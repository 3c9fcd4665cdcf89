"""Parsers of the native score-dump formats, and format detection.

``parse_file(path)`` detects the format from the file's name and first bytes
(or takes ``format=``), runs its parser and returns :class:`Parsed`.  Formats
whose loading executes code (pickles) are refused unless ``trust_pickle=True``.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.input_limits import GZIP_MAGIC, read_input

FORMATS: dict[str, Format] = {}

SNIFF_BYTES = 64 * 1024
# The extensions of score dumps: a file bearing one that no format recognises is a rejection even in a
# folder (a dump that should have been read), while any other unrecognised file of a folder is skipped.
SCORE_EXTENSIONS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet", ".pickle", ".pkl", ".score",
                    ".scores", ".seg", ".sys", ".gz", ".data")


class UnrecognisedFormatError(ParseError):
    """No format recognises the file.  ``skippable`` when it reads as text (or bears no score extension),
    so a file found in an ingested folder may be skipped as not holding scores
    (:func:`flows.ingest.read_file`); one given by name stays an error."""

    def __init__(self, file: str | Path, problem: str, skippable: bool) -> None:
        self.skippable = skippable
        super().__init__(file, problem)


def register_format(fmt: Format) -> Format:
    if fmt.name in FORMATS:
        raise ValueError(f"format {fmt.name!r} is registered twice")
    FORMATS[fmt.name] = fmt
    return fmt


def read_head(path: Path, data: bytes | None = None) -> bytes:
    """The first bytes of ``path``, decompressed when it is gzip; ``data``: the file's bytes when the caller holds
    them already (an ingest batch reads each file once for the raw archive), else they are read from ``path``.

    Decompressed incrementally, so a truncated or corrupt gzip file still shows
    its head to the sniffers and its parser can say exactly what is wrong.
    """
    with open(path, "rb") if data is None else io.BytesIO(data) as handle:
        head = handle.read(SNIFF_BYTES)
        if head[:2] != b"\x1f\x8b":
            return head
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
        text = b""
        block = head
        try:
            while block and len(text) < SNIFF_BYTES:
                text += stream.decompress(block, SNIFF_BYTES - len(text))
                block = stream.unconsumed_tail or handle.read(SNIFF_BYTES)
        except zlib.error:
            pass  # keep what decompressed before the damage
    return text


def what_is_wrong(head: bytes) -> str | None:
    """Why no format could claim a file, from its first bytes, when that is plain to see."""
    if not head:
        return "the file is empty"
    if not head.strip():
        return "the file holds only blank lines"
    if head[:4] == b"PAR1":
        return "a Parquet file that cannot be read (truncated or corrupt?) or whose first columns are not System, Utterance"
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) >= 8 and head[:64].count(0) * 3 >= min(len(head), 64)):
        return "it looks like UTF-16 text; save it as UTF-8"
    if b"\x00" in head:  # binary, as the text reader says
        line = head.count(b"\n", 0, head.index(b"\x00")) + 1
        return f"a NUL byte on line {line}: binary, not text"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if not (error.start >= len(head) - 3 and error.reason == "unexpected end of data"):  # not a character cut
            line = head.count(b"\n", 0, error.start) + 1
            return f"byte {head[error.start]:#04x} on line {line} is not UTF-8 text; save the file as UTF-8"
    return None


def detect_format(path: Path, data: bytes | None = None) -> Format:
    """The one format whose ``sniff`` accepts ``path`` (``data``: its bytes, when held, :func:`read_head`);
    ParseError otherwise."""
    head = read_head(path, data)
    matches = [f for f in FORMATS.values() if f.sniff(path, head)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        damage = gzip_damage(path)
        if damage is not None:  # what the file holds cannot be known, in a folder or not
            raise ParseError(path, damage)
        why = what_is_wrong(head)
        text = why is None  # plainly text (a character cut by the sniffed length aside), nothing visibly wrong
        raise UnrecognisedFormatError(
            path,
            "unrecognised format" + (f" ({why})" if why else "") + "; pass --format with one of: "
            + ", ".join(sorted(FORMATS)),
            skippable=text or not path.name.lower().endswith(SCORE_EXTENSIONS),
        )
    raise ParseError(
        path,
        "ambiguous format, it looks like " + " and ".join(f.name for f in matches)
        + "; pass --format to choose",
    )


def gzip_damage(path: Path) -> str | None:
    """Why a gzip file cannot be read whole (corrupt, truncated, over an input limit); None for an intact one
    or a file that is not gzip.  Its head alone may look like text: the damage is further on."""
    with open(path, "rb") as handle:
        if handle.read(len(GZIP_MAGIC)) != GZIP_MAGIC:
            return None
    try:
        read_input(path)
    except ParseError as error:
        return error.problem
    return None


def choose_format(path: Path, *, format: str | None = None, trust_pickle: bool = False,
                  data: bytes | None = None) -> Format:
    """The format to read ``path`` with: ``format`` if given, else detected (``data``: its bytes, when held,
    :func:`read_head`); pickles need trust."""
    if format is not None:
        if format not in FORMATS:
            raise ParseError(path, f"unknown --format {format!r}; known: {', '.join(sorted(FORMATS))}")
        fmt = FORMATS[format]
    else:
        fmt = detect_format(path, data)
    if fmt.needs_trust and not trust_pickle:
        raise ParseError(
            path,
            f"format {fmt.name!r} executes code when loaded; pass --trust-pickle if you trust this file",
        )
    return fmt


def parse_file(
    path: str | Path,
    *,
    format: str | None = None,
    benchmark: str | None = None,
    trust_pickle: bool = False,
) -> tuple[Format, Parsed]:
    """Parse ``path`` into rows; returns the format used and its output."""
    path = Path(path)
    fmt = choose_format(path, format=format, trust_pickle=trust_pickle)
    return fmt, fmt.parse(path, benchmark)


# Parser modules register themselves on import; this is the one list of them.
from scorehouse.transforms.parsers import (  # noqa: E402,F401
    battles,
    coco_captioning,
    gem_scores,
    instance_long,
    instance_parquet,
    instance_wide,
    json_path,
    leaderboard_rankingnlp,
    leaderboard_value,
    leaderboard_votenrank,
    leaderboard_wide,
    mteb,
    non_scores,
    pickles,
    tac_resp_pyr,
    user_table,
    usr_ratings,
    wmt,
    wmt_da,
)
