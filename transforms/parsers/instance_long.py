"""Instance-level long CSV: ``System, Utterance, <score columns...>``.

One row per (system, instance), one column per metric or human rating, as
written by the preprocessing of Colombo et al., "What are the best systems?
New perspectives on NLP benchmarking" (NeurIPS 2022; ``RankingNLPSystems/
final_df``) and Himmi et al., "Towards more robust NLP system evaluation:
Handling missing scores in benchmarks" (2023; ``MissingDataRanking/final_df``).

- **Swapped labels.**  In the RankingNLPSystems files ``System`` holds the
  instance ids 0..N-1 and ``Utterance`` the system ids.  The parser decides
  from the content: the column whose values are exactly the integers 0..N-1
  is the instance; when only ``System`` is, the labels are swapped back and a
  problem says so.
- **Text columns** (dialogue context, fact, references, hypothesis, source)
  are not scores and are left out; a problem lists them.
- **Naming.**  Known files are named after their dataset: ``benchmark`` is the
  dataset with one set of systems (``usr-pc``, ``usr-tc``, ``flickr``,
  ``summeval``, ``realsumm``, ``tac-08``, ``mlqe``; WMT21 files
  ``wmt21``), ``task`` its subset (``pc``, ``08``), the dataset name, or for
  WMT the language pair (``xh-zu:florestest2021`` when the test set is not
  ``newstestYYYY``).  The MissingDataRanking copies are **negated** (lower is
  better) while the RankingNLPSystems ones are raw, so the former get a
  ``-mdr`` suffix and the two orientations never share a benchmark; its
  ``example_data_cli`` copy with blanked cells is ``usr-pc-missing-mdr`` so
  it does not collide with the complete data.  A file in a folder
  ``benchmark=<B>`` (``scorehouse synth`` output) is benchmark ``B``, task
  the file name.  MLQE-PE has one MT system per
  language pair: task = the pair, system = ``mt-<pair>``.  Other files need
  the ``benchmark`` argument; their task is the file name.  Metric names are
  the column headers as published.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.text import read_csv_records, read_text

LABELS = ("System", "Utterance")
TEXT_COLUMN = re.compile(r"^(Context|Fact|Source|hyp|ref\d*)$")
WMT_FILE = re.compile(r"^(?P<testset>[a-z]+?)(?P<year>20\d\d)?\.(?P<lp>[a-z]{2,3}-[a-z]{2,3})\.data\.csv$")

# file name -> (benchmark, task); "{1}" is the first group of the pattern.
KNOWN_FILES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^DIALOG_(pc|tc)\.csv$"), "usr-{1}", "{1}"),
    (re.compile(r"^FLICKR\.csv$"), "flickr", "flickr"),
    (re.compile(r"^MLQE\.csv$"), "mlqe", "mlqe"),
    (re.compile(r"^REAL_SUM\.csv$"), "realsumm", "realsumm"),
    (re.compile(r"^SUM_EVAL\.csv$"), "summeval", "summeval"),
    (re.compile(r"^TAC_(\d\d)\.csv$"), "tac-{1}", "{1}"),
    (re.compile(r"^DIALOGUE_(pc|tc)_data\.csv$"), "usr-{1}-mdr", "{1}"),
    (re.compile(r"^DIALOGUE_(pc|tc)_missing\.csv$"), "usr-{1}-missing-mdr", "{1}"),
    (re.compile(r"^Flickr_data\.csv$"), "flickr-mdr", "flickr"),
)


def wmt_naming(path: Path, found: re.Match[str]) -> tuple[str | None, str]:
    """(benchmark, task) of a MissingDataRanking WMT file ``<testset><year>.<lp>.data.csv``."""
    year = found.group("year")
    folder = next((m.group(1) for p in reversed(path.parent.parts) if (m := re.fullmatch(r"WMT(\d\d)", p, re.I))), None)
    edition = year[2:] if year else folder
    testset = found.group("testset") + (year or "")
    task = found.group("lp") if found.group("testset") == "newstest" and year else f"{found.group('lp')}:{testset}"
    return (f"wmt{edition}-mdr" if edition else None), task


HIVE_FOLDER = re.compile(r"^benchmark=(?P<benchmark>.+)$")


def naming(path: Path) -> tuple[str | None, str]:
    """(benchmark or None when unknown, task) from the file name.

    A file in a folder ``benchmark=<B>`` (as ``scorehouse synth`` writes them)
    belongs to benchmark ``B`` and its task is the file name without suffix.
    """
    folder = HIVE_FOLDER.match(path.parent.name)
    if folder:
        return folder.group("benchmark"), path.name.split(".")[0]
    for pattern, benchmark, task in KNOWN_FILES:
        found = pattern.match(path.name)
        if found:
            return found.expand(benchmark.replace("{1}", r"\1")), found.expand(task.replace("{1}", r"\1"))
    found = WMT_FILE.match(path.name)
    if found:
        return wmt_naming(path, found)
    return None, path.name.removesuffix(".csv")


def header_fields(head: bytes) -> list[str]:
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r")
    return [f.strip('"') for f in first.split(",")]


def sniff(path: Path, head: bytes) -> bool:
    return tuple(header_fields(head)[:2]) == LABELS


def is_index(column: pl.Series) -> bool:
    """True when ``column`` holds exactly the integers 0..N-1 (N distinct values)."""
    values = column.unique()
    if values.null_count() or not values.str.contains(r"^\d+$").all():
        return False
    numbers = values.cast(pl.Int64, strict=False)
    distinct = numbers.n_unique() == values.len()
    return numbers.null_count() == 0 and distinct and numbers.min() == 0 and numbers.max() == values.len() - 1


def parse(path: Path, benchmark: str | None) -> Parsed:
    frame = read_csv_records(path, read_text(path))
    if tuple(frame.columns[:2]) != LABELS:
        raise ParseError(path, "the first two columns are not System, Utterance", 1)
    return rows_of(path, frame, benchmark)


def rows_of(path: Path, frame: pl.DataFrame, benchmark: str | None) -> Parsed:
    """The long rows of a ``System, Utterance, <score columns...>, line`` table read from ``path``.

    Shared by the CSV and Parquet readers of this layout: label swap, text
    columns, naming and the unpivot to one row per score cell.
    """
    known, task = naming(path)
    if benchmark is None and known is None:
        raise ParseError(path, "not a known dataset file, so its benchmark is unknown; pass --benchmark")
    problems: list[str] = []
    if benchmark is not None and known is not None and known.endswith("-mdr") != benchmark.endswith("-mdr"):
        problems.append(
            f"--benchmark {benchmark!r} given for a file of benchmark {known!r}: MissingDataRanking copies are "
            "negated (lower is better), so mixing them with raw scores in one benchmark inverts rankings"
        )
    benchmark = benchmark or known

    system, instance = "System", "Utterance"
    if frame.height and is_index(frame.get_column("System")) and not is_index(frame.get_column("Utterance")):
        system, instance = instance, system
        problems.append(
            "the System and Utterance labels are swapped (System holds the instance ids 0..N-1): "
            "read Utterance as the system and System as the instance"
        )
    texts = [c for c in frame.columns[2:] if TEXT_COLUMN.match(c)]
    if texts:
        problems.append("text columns left out (not scores): " + ", ".join(texts))
    scores = [c for c in frame.columns[2:] if c not in texts and c != "line"]
    if not scores:
        raise ParseError(path, "no score columns after System and Utterance", 1)

    task_column = pl.lit(task)
    system_column = pl.col(system)
    if benchmark.startswith("mlqe"):
        # MLQE-PE: the "systems" are language pairs, each translated by one MT system.
        task_column = pl.col(system)
        system_column = pl.format("mt-{}", pl.col(system))
        problems.append("MLQE-PE: task = language pair, system = 'mt-<pair>' (one MT system per pair)")
    # The keys travel in one struct column and the scores under positional names, so no
    # header collides with them: a metric may be called "task" or "line", and a header such
    # as "*" or "^x$" (a wildcard or a regex to Polars) is taken as a name.
    positional = {f"_score{i}": name for i, name in enumerate(scores)}
    keys = pl.struct(task=task_column, system=system_column, instance=pl.col(instance), line=pl.col("line"))
    rows = (
        frame.select(keys.alias("_key"), *(frame.get_column(name).alias(p) for p, name in positional.items()))
        .unpivot(index="_key", on=list(positional), variable_name="metric", value_name="value")
        .unnest("_key")
        .with_columns(pl.col("metric").replace_strict(positional, return_dtype=pl.String), benchmark=pl.lit(benchmark))
    )
    if rows.get_column("line").null_count() < rows.height:  # a Parquet file has no lines to keep in order
        rows = rows.sort("line", maintain_order=True)
    return Parsed(rows, tuple(problems))


register_format(
    Format(
        name="instance-long",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="instance-level long CSV: System, Utterance, one column per metric (RankingNLPSystems, MissingDataRanking)",
    )
)
