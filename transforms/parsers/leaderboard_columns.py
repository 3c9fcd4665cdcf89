"""The one table of GLUE, SuperGLUE and XTREME leaderboard columns.

Both scrapes of a benchmark (the Vote'n'Rank one with paired cells ``93.9/91.8``
and the RankingNLPSystems one with halves in columns ``MRPC-a``, ``MRPC-b``)
map onto the same task and metric names through this table, so their rows
are comparable.  Metrics are the ones the official leaderboards print:

GLUE (Wang et al. 2019, "GLUE: A Multi-Task Benchmark and Analysis Platform
for Natural Language Understanding", Table 1 and gluebenchmark.com/leaderboard):

=========  ==================  ===========================
task       metrics (cell order) RankingNLPSystems columns
=========  ==================  ===========================
Score      avg                 Score      (the leaderboard's own average)
CoLA       MCC                 CoLA       (Matthews correlation)
SST-2      acc                 SST-2
MRPC       F1, acc             MRPC-a, MRPC-b
STS-B      Pearson, Spearman   STS-B-a, STS-B-b
QQP        F1, acc             QQP-a, QQP-b
MNLI-m     acc                 MNLI-m     (matched)
MNLI-mm    acc                 MNLI-mm    (mismatched)
QNLI       acc                 QNLI
RTE        acc                 RTE
WNLI       acc                 WNLI
AX         MCC                 AX         (diagnostic, not in the average)
=========  ==================  ===========================

SuperGLUE (Wang et al. 2019, "SuperGLUE: A Stickier Benchmark ...", Table 1
and super.gluebenchmark.com/leaderboard):

=========  ==================  ===========================
Score      avg                 Score
BoolQ      acc                 BoolQ
CB         F1, acc             CB-a, CB-b
COPA       acc                 COPA
MultiRC    F1a, EM             MultiRC-a, MultiRC-b
ReCoRD     F1, acc             ReCoRD-a, ReCoRD-b
RTE        acc                 RTE
WiC        acc                 WiC
WSC        acc                 WSC
AX-b       MCC                 AX-b       (broad diagnostic)
AX-g       parity, acc         AX-g-b, AX-g-a (Winogender: gender parity, accuracy)
=========  ==================  ===========================

The RankingNLPSystems scrape names the AX-g halves ``AX-g-b`` (first: parity)
and ``AX-g-a`` (second: accuracy), the reverse of its other ``-a``/``-b``
pairs; the values match the Vote'n'Rank ``parity/acc`` cells row by row
(ERNIE 3.0: 92.7 and 94.7 in both), so the mapping follows the values.

XTREME (Hu et al. 2020, "XTREME: A Massively Multilingual Multi-task
Benchmark ...", sites.research.google/xtreme): the leaderboard publishes one
average per task category, so every column is metric ``avg``:
Score, Classification, Structured Prediction, Question Answering,
Sentence Retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """One leaderboard column: the task, its metrics in cell order and the
    RankingNLPSystems column of each metric."""

    task: str
    metrics: tuple[str, ...]
    split_columns: tuple[str, ...]


GLUE: tuple[Task, ...] = (
    Task("Score", ("avg",), ("Score",)),
    Task("CoLA", ("MCC",), ("CoLA",)),
    Task("SST-2", ("acc",), ("SST-2",)),
    Task("MRPC", ("F1", "acc"), ("MRPC-a", "MRPC-b")),
    Task("STS-B", ("Pearson", "Spearman"), ("STS-B-a", "STS-B-b")),
    Task("QQP", ("F1", "acc"), ("QQP-a", "QQP-b")),
    Task("MNLI-m", ("acc",), ("MNLI-m",)),
    Task("MNLI-mm", ("acc",), ("MNLI-mm",)),
    Task("QNLI", ("acc",), ("QNLI",)),
    Task("RTE", ("acc",), ("RTE",)),
    Task("WNLI", ("acc",), ("WNLI",)),
    Task("AX", ("MCC",), ("AX",)),
)

SUPERGLUE: tuple[Task, ...] = (
    Task("Score", ("avg",), ("Score",)),
    Task("BoolQ", ("acc",), ("BoolQ",)),
    Task("CB", ("F1", "acc"), ("CB-a", "CB-b")),
    Task("COPA", ("acc",), ("COPA",)),
    Task("MultiRC", ("F1a", "EM"), ("MultiRC-a", "MultiRC-b")),
    Task("ReCoRD", ("F1", "acc"), ("ReCoRD-a", "ReCoRD-b")),
    Task("RTE", ("acc",), ("RTE",)),
    Task("WiC", ("acc",), ("WiC",)),
    Task("WSC", ("acc",), ("WSC",)),
    Task("AX-b", ("MCC",), ("AX-b",)),
    Task("AX-g", ("parity", "acc"), ("AX-g-b", "AX-g-a")),
)

XTREME: tuple[Task, ...] = tuple(
    Task(name, ("avg",), (name,))
    for name in ("Score", "Classification", "Structured Prediction", "Question Answering", "Sentence Retrieval")
)

# family -> (its tasks, default benchmark of the Vote'n'Rank scrape, of the
# RankingNLPSystems scrape).  The two GLUE/SuperGLUE scrapes are different
# snapshots (100 vs 105 GLUE systems), hence different benchmarks.
FAMILIES: dict[str, tuple[tuple[Task, ...], str, str]] = {
    "GLUE": (GLUE, "glue", "glue-2022"),
    "SuperGLUE": (SUPERGLUE, "superglue", "superglue-2022"),
    "XTREME": (XTREME, "xtreme", "xtreme"),
}
