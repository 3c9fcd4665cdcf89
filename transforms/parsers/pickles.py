"""Pickled nested dicts of pandas DataFrames (instances x systems).

The data files of Colombo et al., "What are the best systems? New
perspectives on NLP benchmarking" (NeurIPS 2022; ``RankingNLPSystems/data``)
and Peyrard et al., "Better than Average: Paired Evaluation of NLP Systems"
(ACL 2021; ``BT-eval/Data``): ``{dataset[_human]: {[subset]: {[metric]: DataFrame}}}``
with rows = test instances (index 0..N-1) and columns = systems ``M0``...

Loading a pickle executes code, so the format is registered with
``needs_trust`` and ``pandas.read_pickle`` is called only inside :func:`parse`.

Naming (the DataFrame index is the instance, its columns the systems):

- the top key names the dataset, optionally followed by a human rating
  (``TAC_pyr``, ``Dialogue_qa_engaging``); ``TAC_corr`` holds correlations
  derived from the scores, not scores, and is refused;
- datasets with subsets of different systems (TAC years, USR PersonaChat /
  TopicalChat) give one benchmark per subset (``tac-08``, ``usr-tc``; the
  positional system ids ``M0``... of two subsets are different systems),
  task = the subset (``08``); the others give ``flickr``, ``summeval``,
  ``realsumm``, ``mlqe`` with task = the benchmark;
- metric = the innermost key (automatic metrics), or ``H:<rating>`` for
  human ratings, the rating taken from the top key's suffix or, when the top
  key is the bare dataset, from the file name (``REALSumm_pyr_dataframe`` -> ``H:pyr``);
- MLQE-PE columns are language pairs, each translated by one MT system:
  task = the pair, system = ``mt-<pair>``;
- copies under a ``BT-eval`` or ``original`` folder hold different values for
  the same keys (other preprocessing), so their benchmarks get a ``-bt``
  suffix;
- an explicit ``benchmark`` argument replaces the benchmark of every row.

NaN cells are missing (null); other values are written as the shortest text
that reads back to the same float.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError

# dataset key -> (benchmark, has subsets of different systems)
DATASETS = {
    "TAC": ("tac", True),
    "Dialogue": ("usr", True),
    "Flickr": ("flickr", False),
    "REALSumm": ("realsumm", False),
    "SUMM_v2": ("summeval", False),
    "MLQE-PE": ("mlqe", False),
}
DERIVED = {"corr"}
BT_FOLDERS = {"BT-eval", "original"}
PICKLE_PROTOCOL_2_PLUS = b"\x80"


def sniff(path: Path, head: bytes) -> bool:
    return path.suffix in (".pickle", ".pkl") and head[:1] == PICKLE_PROTOCOL_2_PLUS


def leaves(path: Path, node: object, keys: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    """Every (key path, DataFrame) under ``node``; ParseError for anything else."""
    import pandas as pd

    if isinstance(node, pd.DataFrame):
        return [(keys, node)]
    if isinstance(node, dict):
        found = []
        for key, child in node.items():
            found.extend(leaves(path, child, (*keys, str(key))))
        return found
    raise ParseError(path, f"under keys {list(keys)} there is a {type(node).__name__}, not a dict or a DataFrame")


def split_dataset(top: str) -> tuple[str | None, str]:
    """(dataset, suffix) of a top key: ``Dialogue_qa_engaging`` -> (``Dialogue``, ``qa_engaging``)."""
    for dataset in DATASETS:
        if top == dataset:
            return dataset, ""
        if top.startswith(dataset + "_"):
            return dataset, top[len(dataset) + 1 :]
    return None, top


def rating_from_file(path: Path, dataset: str) -> str:
    stem = path.name.split(".")[0].removesuffix("_dataframe")
    return stem[len(dataset) + 1 :] if stem.lower().startswith(dataset.lower() + "_") else stem


def naming(path: Path, keys: tuple[str, ...], benchmark: str | None) -> tuple[str, str, str]:
    """(benchmark, task, metric) of the DataFrame at ``keys``."""
    dataset, suffix = split_dataset(keys[0])
    if suffix in DERIVED:
        raise ParseError(
            path,
            f"{keys[0]!r} holds correlations derived from the scores (per topic, per metric), not scores "
            "of systems; ingest the score pickles it was computed from instead",
        )
    if dataset is None:
        if benchmark is None:
            raise ParseError(
                path, f"unknown dataset {keys[0]!r} (known: {', '.join(DATASETS)}); pass --benchmark"
            )
        return benchmark, "/".join(keys[:-1]) or keys[0], keys[-1]
    base, has_subsets = DATASETS[dataset]
    rest = keys[1:]
    subset = None
    if has_subsets:
        if not rest:
            raise ParseError(path, f"{dataset!r} should be split into subsets (e.g. '08', 'tc') before its DataFrames")
        subset, rest = rest[0], rest[1:]
    if len(rest) > 1:
        raise ParseError(path, f"too deeply nested: keys {list(keys)}; expected dataset[/subset][/metric]")
    if rest:
        metric = rest[0]
    else:
        metric = "H:" + (suffix.removeprefix("qa_") if suffix else rating_from_file(path, dataset))
    name = f"{base}-{subset}" if subset else base
    if BT_FOLDERS & set(path.parent.parts):
        name += "-bt"
    return benchmark or name, subset or base, metric


def frame_rows(path: Path, frame: object, benchmark: str, task: str, metric: str) -> pl.DataFrame:
    """The cells of one instances x systems DataFrame as PARSED_ROWS."""
    import pandas as pd

    if frame.columns.duplicated().any():
        raise ParseError(path, f"{benchmark}/{task}/{metric}: repeated system column {frame.columns[frame.columns.duplicated()][0]!r}")
    cells = frame.copy()
    cells.columns = [str(c) for c in cells.columns]
    numeric = all(pd.api.types.is_numeric_dtype(t) for t in cells.dtypes)
    # Floats as the shortest round-trip text; anything else as pandas prints it, for validation to judge.
    table = pl.from_pandas(cells.astype("float64") if numeric else cells.astype(str), include_index=False)
    table = table.with_columns(instance=pl.Series(frame.index.astype(str).to_numpy(), dtype=pl.String))
    long = table.unpivot(index="instance", variable_name="system", value_name="value").with_columns(
        pl.col("value").cast(pl.String)
    )
    missing = pl.col("value").is_in(["NaN", "nan", "None", "<NA>"])
    system = pl.col("system")
    if benchmark.startswith("mlqe") or task == "mlqe":
        task_column, system = pl.col("system"), pl.format("mt-{}", pl.col("system"))
    else:
        task_column = pl.lit(task)
    return long.select(
        benchmark=pl.lit(benchmark),
        task=task_column,
        metric=pl.lit(metric),
        instance="instance",
        system=system,
        value=pl.when(missing).then(None).otherwise(pl.col("value")),
        line=pl.lit(None, dtype=pl.Int64),
    )


def parse(path: Path, benchmark: str | None) -> Parsed:
    import pandas as pd

    try:
        loaded = pd.read_pickle(path)
    except Exception as exc:  # unpickling junk raises any type (EOFError, UnpicklingError, ImportError, ...)
        raise ParseError(path, f"not a readable pickle ({type(exc).__name__}: {exc})") from exc
    found = leaves(path, loaded)
    if not found:
        raise ParseError(path, "the pickle holds no DataFrame")
    if not found[0][0]:
        raise ParseError(path, "a bare DataFrame does not name its dataset; wrap it as {dataset: {metric: frame}}")
    parts = [frame_rows(path, frame, *naming(path, keys, benchmark)) for keys, frame in found]
    rows = pl.concat(parts, how="vertical")
    problems = []
    if BT_FOLDERS & set(path.parent.parts) and benchmark is None:
        problems.append("BT-eval copy: benchmarks carry a '-bt' suffix (its values differ from the RankingNLPSystems annotations)")
    if rows.get_column("benchmark").str.starts_with("mlqe").any():
        problems.append("MLQE-PE: task = language pair, system = 'mt-<pair>' (one MT system per pair)")
    return Parsed(rows, tuple(problems))


register_format(
    Format(
        name="pickle-frames",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="pickled {dataset: {subset: {metric: DataFrame instances x systems}}} (RankingNLPSystems, BT-eval)",
        needs_trust=True,
    )
)
