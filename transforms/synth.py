"""Synthetic instance-level benchmarks with a known true ranking, shaped like the native dumps.

The score model is the one of Colombo et al. (2022), "What are the best
systems? New perspectives on NLP benchmarking" (NeurIPS), section 5, as
implemented by :func:`aggregators.synthetic.gumbel_scores`: on every voter
(task, metric, instance) system ``n`` scores ``phi * n + G`` with ``G`` a
standard Gumbel draw, so the true order is the systems' index (the last is
best).  This module lays such scores out as the instance-level long dumps of
:mod:`transforms.parsers.instance_long` (``System, Utterance, <metric...>``, one
row per (system, instance), one file per task) and decides, reproducibly, which
tasks are corrupted (reversed order), which task is rescaled, and which
(system, task) cells are missing.

Every task is generated from its own seed ``(seed, benchmark, task)``, so any
task can be produced alone, in any order, and a whole data set never has to
be held in memory.  Values are rounded to :data:`DECIMALS` decimals, as
published dumps are, so that the CSV and Parquet copies carry the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.synthetic import gumbel_scores, system_names, true_ranking

DECIMALS = 6


@dataclass(frozen=True)
class SynthSpec:
    """The shape of a synthetic data set (defaults: one WMT-like benchmark)."""

    benchmarks: int = 1
    tasks: int = 16
    metrics: int = 17
    instances: int = 2000
    systems: int = 15
    phi: float = 0.5
    corrupted_fraction: float = 0.0
    rescale: float = 1.0
    missing_fraction: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("benchmarks", "tasks", "metrics", "instances"):
            if getattr(self, name) < 1:
                raise InvalidParameterError(f"synth: {name} must be >= 1, got {getattr(self, name)!r}")
        if self.systems < 2:
            raise InvalidParameterError(f"synth: systems must be >= 2 (nothing to rank otherwise), got {self.systems!r}")
        for name in ("corrupted_fraction", "missing_fraction"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise InvalidParameterError(f"synth: {name} must be in [0, 1], got {getattr(self, name)!r}")
        if not (math.isfinite(self.rescale) and self.rescale > 0):
            raise InvalidParameterError(f"synth: rescale must be a finite number > 0, got {self.rescale!r}")

    @property
    def n_scores(self) -> int:
        """Scores written when no cell is missing."""
        return self.benchmarks * self.tasks * self.metrics * self.instances * self.systems

    def as_dict(self) -> dict:
        return asdict(self)


def instances_for(n_scores: int, *, benchmarks: int, tasks: int, metrics: int, systems: int) -> int:
    """Instances per task so that the data set holds at least ``n_scores`` scores (before missing cells)."""
    if n_scores < 1:
        raise InvalidParameterError(f"synth: the number of scores must be >= 1, got {n_scores!r}")
    return max(1, math.ceil(n_scores / (benchmarks * tasks * metrics * systems)))


def benchmark_name(index: int) -> str:
    return f"synth-{index:02d}"


def task_name(index: int) -> str:
    return f"t{index:03d}"


def metric_names(n_metrics: int) -> list[str]:
    return [f"m{i:02d}" for i in range(n_metrics)]


def _missing_cells(rng: np.random.Generator, spec: SynthSpec) -> np.ndarray:
    """tasks x systems mask of missing (system, task) cells.

    About ``missing_fraction`` of the cells, drawn in random order and kept
    only while every task keeps two systems and every system one task, so that
    each task still ranks something and each system is still ranked.
    """
    missing = np.zeros((spec.tasks, spec.systems), dtype=bool)
    wanted = round(spec.missing_fraction * spec.tasks * spec.systems)
    # A loop over the (task, system) cells of one benchmark: a few hundred at most.
    for cell in rng.permutation(spec.tasks * spec.systems):
        if wanted == 0:
            break
        t, s = divmod(int(cell), spec.systems)
        if (~missing[t]).sum() > 2 and (~missing[:, s]).sum() > 1:
            missing[t, s] = True
            wanted -= 1
    return missing


def plan(spec: SynthSpec) -> pl.DataFrame:
    """One row per (benchmark, task): its seed index, corrupted and scale flags, and present systems.

    Columns: ``benchmark, task, b, t, corrupted, scale, systems`` (list of
    system names present in the task).  In every benchmark the first
    ``round(corrupted_fraction * tasks)`` tasks of a random order are
    corrupted and, when ``rescale != 1``, the last task of that order is
    rescaled (it is corrupted too only when every task is).
    """
    names = np.array(system_names(spec.systems))
    rows = []
    for b in range(spec.benchmarks):
        rng = np.random.default_rng([spec.seed, b])
        order = rng.permutation(spec.tasks)
        corrupted = np.zeros(spec.tasks, dtype=bool)
        corrupted[order[: round(spec.corrupted_fraction * spec.tasks)]] = True
        scale = np.ones(spec.tasks)
        if spec.rescale != 1.0:
            scale[order[-1]] = spec.rescale
        missing = _missing_cells(rng, spec)
        for t in range(spec.tasks):
            rows.append(
                {
                    "benchmark": benchmark_name(b),
                    "task": task_name(t),
                    "b": b,
                    "t": t,
                    "corrupted": bool(corrupted[t]),
                    "scale": float(scale[t]),
                    "systems": names[~missing[t]].tolist(),
                }
            )
    return pl.DataFrame(rows)


def task_frame(spec: SynthSpec, task: dict) -> pl.DataFrame:
    """The dump of one task of :func:`plan`: ``System, Utterance, m00, m01, ...``.

    Rows are grouped by system then instance; scores of missing systems are
    drawn and then left out, so a task's values do not depend on which cells
    are missing.
    """
    rng = np.random.default_rng([spec.seed, task["b"], task["t"]])
    n_voters = spec.metrics * spec.instances
    corrupted = np.full(n_voters, task["corrupted"])
    scale = np.full(n_voters, task["scale"])
    scores = gumbel_scores(rng, n_voters, spec.systems, phi=spec.phi, corrupted=corrupted, scale=scale)
    scores = np.round(scores, DECIMALS)
    # voters are metric-major: voter = metric * instances + instance -> (system, instance, metric)
    cube = scores.reshape(spec.metrics, spec.instances, spec.systems).transpose(2, 1, 0)
    present = np.isin(system_names(spec.systems), task["systems"])
    cube = cube[present]
    n_present = int(present.sum())
    columns = {
        "System": np.repeat(np.array(system_names(spec.systems))[present], spec.instances),
        "Utterance": np.tile(np.arange(spec.instances, dtype=np.int64), n_present),
    }
    flat = cube.reshape(n_present * spec.instances, spec.metrics)
    columns.update({name: flat[:, i] for i, name in enumerate(metric_names(spec.metrics))})
    return pl.DataFrame(columns)


def scores_in(frame: pl.DataFrame) -> int:
    """Scores in one task's dump of :func:`task_frame` (every column but ``System`` and ``Utterance``)."""
    return frame.height * (frame.width - 2)


def summary_of(spec: SynthSpec, tasks: pl.DataFrame, n_scores: int) -> dict:
    """What ``spec.json`` says: the parameters, the number of scores, the true ranking and the plan."""
    return {
        "spec": spec.as_dict(),
        "n_scores": n_scores,
        "true_ranking": true_ranking(spec.systems),
        "tasks": tasks.with_columns(pl.col("systems").list.len().alias("n_systems")).drop("systems", "b", "t").to_dicts(),
    }
