"""The cells of MTEB result documents, for a whole batch of files at once.

The naming rules are :mod:`transforms.parsers.mteb`'s (its docstring); this module applies them to
documents already read.  The cost that grows with the scores is kept out of per-row Python objects:
each document is walked once, its numeric leaves appended to three flat lists for the whole batch
(leaf name, value, the entry it belongs to), and names that depend on the entry (task, subset, split)
are decided once per entry (a subset of a split: tens per file), then attached to the leaves in
Polars.  Values are JSON numbers as floats (``json.loads`` reads them exactly as Python would; a
``NaN`` or ``Infinity`` stays non-finite for validation to quarantine); text and booleans are not
scores; a JSON ``null`` is a missing cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from scorehouse.transforms.slices import repeated

HEADLINE = "main_score"
SPLIT_PREFERENCE = ("test", "validation", "dev")
EARLY_HEADER = ("mteb_dataset_name", "mteb_version", "dataset_revision", "evaluation_time", "kg_co2_emissions")
NAMES = EARLY_HEADER[:3]  # file-level text that names the result, never a score
NAN = float("nan")  # a NaN score of a file read with NaN as text (transforms.parsers.mteb.read_result)
# Objects of an early split that are metric groups, not subsets: the similarity functions of the STS and
# pair-classification evaluators ("cos_sim": {"pearson": ...}); the only such keys in the repository's
# early files (its subsets are language codes).
SIMILARITIES = frozenset({"cos_sim", "euclidean", "manhattan", "dot", "max"})


def subsets_of(doc: dict) -> tuple[str | None, dict[str, list[dict]], dict]:
    """(task name, split -> subset entries each with ``hf_subset``, file-level fields) of either format.

    Current format: ``scores: {split: [entry, ...]}``.  Early format: ``split: {metric: value}`` (one
    subset, ``default``) or ``split: {subset: {metric: value}, ...}`` whose non-object fields (its
    ``evaluation_time``) are an entry without a subset, kept with the split; objects named for a
    similarity function (:data:`SIMILARITIES`) are metrics of their subset, not subsets.
    """
    if isinstance(doc.get("scores"), dict):
        splits = {s: [e for e in entries if isinstance(e, dict)] for s, entries in doc["scores"].items()
                  if isinstance(entries, list)}
        return doc.get("task_name"), splits, {k: v for k, v in doc.items() if k != "scores"}
    splits = {}
    for split, body in doc.items():
        if split in EARLY_HEADER or not isinstance(body, dict):
            continue
        nested = {k: v for k, v in body.items() if isinstance(v, dict) and k not in SIMILARITIES}
        if nested:
            outer = {k: v for k, v in body.items() if k not in nested}
            splits[split] = [{"hf_subset": k, **v} for k, v in nested.items()]
            if outer:
                splits[split].append({"hf_subset": None, **outer})
        else:
            splits[split] = [{"hf_subset": "default", **body}]
    return doc.get("mteb_dataset_name"), splits, {k: v for k, v in doc.items() if k in EARLY_HEADER}


def evaluation_split(splits: dict[str, list[dict]]) -> str | None:
    """``test`` if the file has it, else ``validation``, else ``dev``, else its first split."""
    return next((s for s in SPLIT_PREFERENCE if s in splits), next(iter(splits), None))


def headline(entries: list[dict], nan: str | None = None) -> float | None:
    """The mean ``main_score`` over the named subsets of the evaluation split; None unless each has a number
    (``nan``: the text that stands for NaN in the document, :func:`transforms.parsers.mteb.read_result`)."""
    values = [e.get(HEADLINE) for e in entries if e.get("hf_subset") is not None]
    if nan is not None:
        values = [NAN if v == nan else v for v in values]
    numbers = [v for v in values if type(v) in (float, int)]
    return sum(numbers) / len(numbers) if values and len(numbers) == len(values) else None


@dataclass
class Cells:
    """The numeric leaves of a batch: ``metric``/``value``/``entry`` per leaf, ``task``/``file`` per entry."""

    metric: list[str] = field(default_factory=list)
    value: list[float | None] = field(default_factory=list)
    leaves: list[int] = field(default_factory=list)  # per entry: how many leaves it holds
    task: list[str] = field(default_factory=list)  # per entry
    file: list[int] = field(default_factory=list)  # per entry: the file's place in the batch
    nan: str | None = None  # the text that stands for NaN in the document being added

    def leaf(self, obj: object, name: str) -> None:
        """Append the numeric leaves of ``obj`` as ``name``, ``name.key``, ``name[i]`` (recursion over the
        document's nesting, a few levels; the leaves themselves go to flat lists)."""
        kind = type(obj)
        if kind is float or kind is int:
            self.metric.append(name)
            self.value.append(obj)
        elif obj is None:
            self.metric.append(name)
            self.value.append(None)
        elif kind is dict:
            for key, inner in obj.items():
                self.leaf(inner, f"{name}.{key}")
        elif kind is list:
            for i, inner in enumerate(obj):
                self.leaf(inner, f"{name}[{i}]")
        elif obj == self.nan:  # other text is not a score
            self.metric.append(name)
            self.value.append(NAN)

    def entry(self, file: int, task: str, fields: dict, skip: tuple[str, ...]) -> None:
        """One entry (a subset, or the file's header) of ``file``: its fields but ``skip`` under ``task``."""
        before = len(self.metric)
        for key, inner in fields.items():
            if key not in skip:
                self.leaf(inner, key)
        self.leaves.append(len(self.metric) - before)
        self.task.append(task)
        self.file.append(file)

    def add(self, file: int, task: str, splits: dict[str, list[dict]], header: dict, nan: str | None = None) -> bool:
        """Every kept field of one document, in which ``nan`` is the text that stands for NaN (None: none does);
        whether it has a headline (module docstring of ``mteb``)."""
        self.nan = nan
        main = evaluation_split(splits)
        self.entry(file, task, header, NAMES)
        for split, entries in splits.items():
            base = task if split == main else f"{task}@{split}"
            single = sum(e.get("hf_subset") is not None for e in entries) == 1
            for e in entries:
                subset = e.get("hf_subset")
                own = base if subset is None or single else f"{base}/{subset}"
                # the task's own main_score is the headline, added below
                self.entry(file, own, e, ("hf_subset", HEADLINE) if own == task else ("hf_subset",))
        mean = headline(splits.get(main, []), nan)
        if mean is not None:
            self.metric.append(HEADLINE)
            self.value.append(mean)
            self.leaves.append(1)
            self.task.append(task)
            self.file.append(file)
        return mean is not None

    def frame(self) -> pl.DataFrame:
        """``file, task, metric, value`` of every leaf, in document order."""
        return pl.DataFrame({
            "file": repeated(pl.Series(self.file, dtype=pl.UInt32), self.leaves),
            "task": repeated(pl.Series(self.task, dtype=pl.String), self.leaves),
            "metric": pl.Series(self.metric, dtype=pl.String),
            "value": pl.Series(self.value, dtype=pl.Float64, strict=False),
        })
