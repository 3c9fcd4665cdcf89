"""Where ranking methods disagree on one benchmark, and why, in one line per system that moves.

For every pair of methods: Kendall's tau-b between their rankings (Kendall
1945), whether their top-1 and their top-3 sets differ (Colombo et al.
2022, "What are the best systems? New perspectives on NLP benchmarking",
NeurIPS, Table 2, compares the mean and Borda this way), and the systems
whose rank moves most, each with an explanation read off the data.

The explanation states, for the system, the fact each method's view rests
on: for a method of the ``scores`` view (means, median) its mean score
and its largest gap to the median system on one task; for the ``ranks``
view (Borda and other positional rules) on how many tasks it is above the
median system and its average position; for the ``pairwise`` view
(Copeland, Minimax, ...) how many systems it beats head-to-head.  For
example: "wins 9 of 14 tasks but is 30.1 points below the median on WNLI,
so mean ranks it lower (12) than borda (5)".  Tasks are the voters' groups;
a task's score is the weighted mean of its voters' scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import polars as pl

from scorehouse.aggregators.majority import majority
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import tie_classes
from scorehouse.aggregators.registry import method_info
from scorehouse.aggregators.robustness import compare_batch, positive_voters, units_of
from scorehouse.aggregators.schemas import MOVES_SCHEMA, PAIRS_SCHEMA

def task_scores(profile: Profile) -> tuple[tuple[str, ...], np.ndarray]:
    """Task names and a tasks x systems matrix: the weighted mean of each task's voters (NaN if none scored)."""
    units = units_of(profile)
    weights = profile.weights[:, None] * profile.observed
    totals = np.zeros((len(units.names), len(profile.systems)))
    sums = np.zeros_like(totals)
    np.add.at(totals, units.of_voter, weights)
    np.add.at(sums, units.of_voter, weights * np.nan_to_num(profile.scores))
    with np.errstate(invalid="ignore", divide="ignore"):
        return units.names, np.where(totals > 0, sums / totals, np.nan)


def _facts(profile: Profile) -> dict[str, np.ndarray | tuple[str, ...]]:
    """Per-system facts the explanations quote (one array entry per system)."""
    names, tasks = task_scores(profile)
    gap = tasks - np.nanmedian(tasks, axis=1, keepdims=True)
    scored = ~np.isnan(tasks)
    # Positions per task (1 = best), NaN where the system has no score on the task.
    positions = np.vstack([np.where(np.isnan(row), np.nan, tie_classes(row)) for row in tasks])
    filled = np.where(scored, gap, 0.0)
    return {
        "tasks": names,
        "n_tasks": scored.sum(axis=0),
        "above": (np.where(scored, gap, -np.inf) > 0).sum(axis=0),
        "mean": np.nanmean(tasks, axis=0),
        "worst_task": np.argmin(np.where(scored, gap, np.inf), axis=0),
        "worst_gap": np.min(np.where(scored, filled, np.inf), axis=0),
        "best_task": np.argmax(np.where(scored, gap, -np.inf), axis=0),
        "best_gap": np.max(np.where(scored, filled, -np.inf), axis=0),
        "position": np.nanmean(positions, axis=0),
        "beats": majority(profile).beats.sum(axis=1),
    }


def _fact(view: str, s: int, facts: Mapping, lower: bool, n_systems: int) -> str:
    """The fact behind a method of ``view`` ranking system ``s`` (``lower``: this method ranks it lower)."""
    if view == "scores":
        # Ranked lower by a mean: its worst task pulls it down; ranked higher: its best task lifts it.
        gap, task = (facts["worst_gap"][s], facts["worst_task"][s]) if lower else (facts["best_gap"][s], facts["best_task"][s])
        side = "above" if gap >= 0 else "below"
        return f"is {abs(gap):.3g} points {side} the median on {facts['tasks'][task]}"
    if view == "ranks":
        return f"is above the median on {facts['above'][s]} of {facts['n_tasks'][s]} tasks (average position {facts['position'][s]:.1f})"
    return f"beats {facts['beats'][s]} of {n_systems - 1} systems head-to-head"


def explain(
    system: int, method_a: str, rank_a: int, method_b: str, rank_b: int, facts: Mapping, n_systems: int
) -> str:
    """One line: the facts behind each method's view of the system and which way it moved."""
    view_a, view_b = method_info(method_a).view, method_info(method_b).view
    a_lower = rank_a > rank_b
    first = _fact(view_a, system, facts, a_lower, n_systems)
    second = _fact(view_b, system, facts, not a_lower, n_systems)
    parts = [second, first] if view_a == view_b else [first, second]
    facts_text = parts[0] if view_a == view_b else f"{parts[1]} but {parts[0]}"
    direction = "lower" if a_lower else "higher"
    return f"{facts_text}, so {method_a} ranks it {direction} ({rank_a}) than {method_b} ({rank_b})"


def disagreement(
    profile: Profile, scores: Mapping[str, np.ndarray], *, n_moves: int = 3
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The pairs table (:data:`PAIRS_SCHEMA`) and the moves table (:data:`MOVES_SCHEMA`).

    ``scores`` maps each method name to its scores of ``profile.systems``
    (higher is better).  For each pair, the ``n_moves`` systems with the
    largest rank change (ties broken by name) are explained.
    """
    profile = positive_voters(profile)
    facts = _facts(profile)
    n = len(profile.systems)
    ranks = {m: tie_classes(np.asarray(s, dtype=float)) for m, s in scores.items()}
    pairs, moves = [], []
    for a, b in combinations(scores, 2):  # a loop over pairs of a handful of methods
        tau, top1, top3 = compare_batch(scores[a], np.asarray(scores[b], dtype=float)[None, :])
        best_a = [profile.systems[i] for i in np.flatnonzero(ranks[a] == 1)]
        best_b = [profile.systems[i] for i in np.flatnonzero(ranks[b] == 1)]
        pairs.append(
            {
                "method_a": a,
                "method_b": b,
                "kendall_tau": float(tau[0]),
                "top1_differs": bool(top1[0] < 1),
                "top3_differs": bool(top3[0] < 1) if n >= 3 else False,
                "top1_a": "; ".join(best_a),
                "top1_b": "; ".join(best_b),
            }
        )
        shift = ranks[a] - ranks[b]
        order = np.lexsort((np.arange(n), -np.abs(shift)))
        for s in order[:n_moves]:
            if shift[s] == 0:
                break
            moves.append(
                {
                    "method_a": a,
                    "method_b": b,
                    "system": profile.systems[s],
                    "rank_a": int(ranks[a][s]),
                    "rank_b": int(ranks[b][s]),
                    "shift": int(shift[s]),
                    "explanation": explain(int(s), a, int(ranks[a][s]), b, int(ranks[b][s]), facts, n),
                }
            )
    return pl.DataFrame(pairs, schema=PAIRS_SCHEMA), pl.DataFrame(moves, schema=MOVES_SCHEMA)
