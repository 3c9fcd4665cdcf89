"""The reference code of "What are the best systems?" emulated, to show where its Tables 2 and 7 come from.

Colombo, Noiry, Irurozki and Clémençon (2022), "What are the best systems?
New perspectives on NLP Benchmarking", NeurIPS, arXiv:2202.03799; reference
code PierreColombo/RankingNLPSystems (``utils.py`` and the notebook
``reproducing_paper_results/Task Level Information Experiement.ipynb``),
whose printed outputs are the numbers checked here (:data:`PRINTED_TAU`,
:data:`PRINTED_TOP_K`, :data:`PRINTED_XTREME_BORDA`).

The rule as the code runs it (described here, not copied):

* reading: ``data/<name>.data`` is read as CSV with the header's column
  count; a row with more fields loses its trailing ones.  XTREME's rows carry
  an empty field after the name, so every value sits one column right of its
  header: ``Score`` is empty, ``Classification`` holds the leaderboard's
  average and the last task is lost (:func:`reference_table`);
* the mean order: systems ordered best first by the mean of every column but
  the second (``Score``, the leaderboard's own average);
* Table 2 then ranks that reordered table again over *every* column, the
  own average included (``own_average``), by the row mean and by Borda.  A
  column's Borda points are the positions of an argsort of an argsort
  (0 = lowest); a column without any value is all -1 before the second
  argsort, so its points follow the row order, the mean order;
* ties fall where numpy's introsort (its quicksort before the vectorised
  sorts of 2023: median-of-three partitions, insertion sort on runs of at
  most 16) leaves them (``ties="introsort"``), not averaged;
* Kendall tau is scipy's tau-b of the two *orders*, the lists of system
  indices best first, not of the rankings (``compare="orders"``);
* Table 7's Borda counts (printed for XTREME only) are the points of the
  mean-ordered table without the own average.

With the three switches off (no own average, average ties, rankings
compared) the rule is the library's mean against Borda with unit weights on
the same columns (tested).  This module is a benchmark, never part of the
library; its sort is a plain Python loop because the point is the exact
order an old algorithm leaves ties in, on at most 105 systems.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from scipy import stats

from scorehouse.aggregators.ranking import tie_classes

DATA = Path(__file__).resolve().parents[1] / "data/bundled/RankingNLPSystems/data"
CASES = ("xtrem", "glue", "superglue")

# Printed by the notebook's agreement cells (``analyse_agreements_benchmark``): tau ("all"), and with
# ``type_of_agreement=-1`` (the first k of the orders, i.e. the top k) tau of the first 10 entries.
PRINTED_TAU = {"xtrem": 0.828571, "glue": 0.916850, "superglue": 0.913043}
PRINTED_TOP_K = {"xtrem": 0.644444, "glue": 0.822222, "superglue": 0.911111}
# The root notebook's variant of the same cell prints the size of the intersection of the two top-k sets.
PRINTED_TOP_K_COMMON = {"xtrem": (1, 2, 4, 9), "glue": (1, 3, 4, 9), "superglue": (1, 3, 4, 9)}
TOP_K = (1, 3, 5, 10)
# Printed by the notebook's Borda cell on XTREME ("Count Borda"), rows in the mean order.
PRINTED_XTREME_BORDA = (55, 50, 34, 44, 42, 35, 31, 29, 29, 21, 22, 15, 9, 3, 1)
# "What are the best systems?", Table 2: Kendall tau between the mean and Borda.
PUBLISHED_TAU = {"xtrem": 0.82, "glue": 0.92, "superglue": 0.91}


def reference_table(name: str) -> tuple[list[str], list[str], np.ndarray]:
    """The systems, the column names (``Model`` left out) and the values (systems x columns, NaN when empty)."""
    with open(DATA / f"{name}.data", newline="") as handle:
        rows = list(csv.reader(handle))
    header = [cell.strip() for cell in rows[0]]
    width = len(header)
    cells = [row[:width] + [""] * (width - len(row)) for row in rows[1:] if row]
    values = np.array([[float(c) if c.strip() else np.nan for c in row[1:]] for row in cells])
    return [row[0].strip() for row in cells], header[1:], values


def _less(a: float, b: float) -> bool:
    """numpy's float order: NaN after every number."""
    return a < b or (b != b and a == a)


def introsort_argsort(values: np.ndarray) -> np.ndarray:
    """The order numpy's pre-2023 quicksort gives (ties included): median-of-three partitions, insertion sort below 17.

    The depth limit that switches to heapsort is never reached on these tables
    (checked: a sorted, a reversed and an all-equal input stay far from it).
    """
    v = [float(x) for x in values]
    order = list(range(len(v)))
    pending: list[tuple[int, int]] = []
    low, high = 0, len(v) - 1
    while True:
        while high - low > 15:
            middle = low + ((high - low) >> 1)
            if _less(v[order[middle]], v[order[low]]):
                order[middle], order[low] = order[low], order[middle]
            if _less(v[order[high]], v[order[middle]]):
                order[high], order[middle] = order[middle], order[high]
            if _less(v[order[middle]], v[order[low]]):
                order[middle], order[low] = order[low], order[middle]
            pivot = v[order[middle]]
            i, j = low, high - 1
            order[middle], order[j] = order[j], order[middle]
            while True:
                i += 1
                while _less(v[order[i]], pivot):
                    i += 1
                j -= 1
                while _less(pivot, v[order[j]]):
                    j -= 1
                if i >= j:
                    break
                order[i], order[j] = order[j], order[i]
            order[i], order[high - 1] = order[high - 1], order[i]
            if i - low < high - i:  # the larger part waits, the smaller is sorted first
                pending.append((i + 1, high))
                high = i - 1
            else:
                pending.append((low, i - 1))
                low = i + 1
        for position in range(low + 1, high + 1):
            item, place = order[position], position
            while place > low and _less(v[item], v[order[place - 1]]):
                order[place] = order[place - 1]
                place -= 1
            order[place] = item
        if not pending:
            return np.array(order, dtype=np.int64)
        low, high = pending.pop()


def _ranks(values: np.ndarray, ties: str) -> np.ndarray:
    """0-based ascending ranks: the argsort of an argsort, or average ranks under the library's tie tolerance."""
    if ties == "introsort":
        return introsort_argsort(introsort_argsort(values))
    if ties == "average":  # float noise in a mean is no order: scores within TIE_TOLERANCE tie, as in the library
        return stats.rankdata(-tie_classes(values), method="average") - 1.0
    raise ValueError(f"ties must be 'introsort' or 'average', got {ties!r}")


def _column_points(column: np.ndarray, ties: str) -> np.ndarray:
    """A column's Borda points; the reference's empty cells are -1 before the second argsort."""
    seen = ~np.isnan(column)
    if ties == "average":  # an empty cell earns nothing
        points = np.zeros(len(column))
        points[seen] = _ranks(column[seen], ties)
        return points
    first = np.full(len(column), -1, dtype=np.int64)
    first[seen] = introsort_argsort(column[seen])
    return introsort_argsort(first)


def _mean_order(values: np.ndarray, ties: str) -> np.ndarray:
    """Systems best first by the mean of the columns (the reference: ``argsort(-ranks)``)."""
    ranks = _ranks(np.nanmean(values, axis=1), ties)
    return introsort_argsort(-ranks) if ties == "introsort" else np.argsort(-ranks, kind="stable")


def borda_counts(values: np.ndarray, ties: str = "introsort") -> np.ndarray:
    """Each system's Borda points summed over the columns that hold a value."""
    return sum(_column_points(values[:, c], ties) for c in range(values.shape[1]))


def agreement(
    name: str, *, own_average: bool = True, ties: str = "introsort", compare: str = "orders"
) -> dict[str, object]:
    """Kendall tau of the mean against Borda, the tau of the first 10 entries and the top-k intersections."""
    _, _, values = reference_table(name)
    considered = np.delete(values, 0, axis=1)
    table = (values if own_average else considered)[_mean_order(considered, ties)]
    mean_ranks = _ranks(np.nanmean(table, axis=1), ties)
    borda_ranks = _ranks(borda_counts(table, ties), ties)
    sort = introsort_argsort if ties == "introsort" else (lambda x: np.argsort(x, kind="stable"))
    mean_order, borda_order = sort(-mean_ranks), sort(-borda_ranks)
    if compare == "orders":
        tau = stats.kendalltau(mean_order, borda_order)[0]
    elif compare == "ranks":
        tau = stats.kendalltau(mean_ranks, borda_ranks)[0]
    else:
        raise ValueError(f"compare must be 'orders' or 'ranks', got {compare!r}")
    return {
        "tau": float(tau),
        "top10_tau": float(stats.kendalltau(mean_order[:10], borda_order[:10])[0]),
        "common": tuple(len(set(mean_order[:k]) & set(borda_order[:k])) for k in TOP_K),
    }


def table7(name: str, ties: str = "introsort", top: int | None = 10) -> list[tuple[str, float, float]]:
    """The reference's Borda table: (system, Borda points, mean) in the mean order, own average left out;
    the first ``top`` rows (None: all)."""
    systems, _, values = reference_table(name)
    considered = np.delete(values, 0, axis=1)
    order = _mean_order(considered, ties)
    table = considered[order]
    counts, means = borda_counts(table, ties), np.nanmean(table, axis=1)
    return [(" ".join(systems[i].split()), float(c), float(m)) for i, c, m in zip(order, counts, means)][:top]


# The Table 2 variants shown side by side: the reference rule, each of its departures undone alone, and none.
VARIANTS = {
    "reference rule": {},
    "own average left out": {"own_average": False},
    "ties averaged": {"ties": "average"},
    "rankings compared": {"compare": "ranks"},
    "none of the three": {"own_average": False, "ties": "average", "compare": "ranks"},
}


def report() -> list[str]:
    """Markdown: Table 2 as printed, emulated and undone step by step; Table 7's Borda points under the reference."""
    labels = list(VARIANTS)
    results = {name: {label: agreement(name, **VARIANTS[label]) for label in labels} for name in CASES}
    lines = ["| benchmark | published | printed by the notebook | " + " | ".join(labels) + " |",
             "|---|---|---|" + "---|" * len(labels)]
    for name in CASES:
        lines.append(f"| {name} | {PUBLISHED_TAU[name]} | {PRINTED_TAU[name]:.6f} | "
                     + " | ".join(f"{results[name][label]['tau']:.6f}" for label in labels) + " |")
    lines += ["\nTop-k: systems common to the two top-k sets (k = " + ", ".join(map(str, TOP_K)) + ").\n",
              "| benchmark | printed by the notebook | reference rule | none of the three |", "|---|---|---|---|"]
    for name in CASES:
        lines.append(f"| {name} | {PRINTED_TOP_K_COMMON[name]} | {results[name]['reference rule']['common']} "
                     f"| {results[name]['none of the three']['common']} |")
    for name in CASES:
        averaged = {system: count for system, count, _ in table7(name, ties="average", top=None)}
        printed = name == "xtrem"
        lines += [f"\n**Table 7, {name}** (the reference's Borda points of its top ten by the mean"
                  + ("; the notebook printed them for XTREME only" if printed else "") + ")\n",
                  "| system | mean | Borda, reference rule | Borda, ties averaged |"
                  + (" printed |" if printed else ""),
                  "|---|---|---|---|" + ("---|" if printed else "")]
        for i, (system, count, mean) in enumerate(table7(name)):
            lines.append(f"| {system} | {mean:.3f} | {count:.0f} | {averaged[system]:.1f} |"
                         + (f" {PRINTED_XTREME_BORDA[i]} |" if printed else ""))
    return lines
